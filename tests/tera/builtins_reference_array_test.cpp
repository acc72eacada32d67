// Generated from Tera 1.17 reference renderer outputs (tests/tera/builtins_cases/*.tsv).
// Each line: kind, name, input JSON, arguments JSON -> expected JSON output or error message.
#include "builtins_test_util.hpp"

TEST(BuiltinsReference_array, Reference0) {
  filter_case(R"SINDRI(first)SINDRI", R"SINDRI([1,2,3])SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI(1)SINDRI");
  filter_case(R"SINDRI(first)SINDRI", R"SINDRI([])SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("")SINDRI");
  filter_case(R"SINDRI(first)SINDRI", R"SINDRI("abc")SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Filter `first` was called on an incorrect value: got `"abc"` but expected a Vec<Value>)SINDRI");
  filter_case(R"SINDRI(last)SINDRI", R"SINDRI(["Hello","World"])SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("World")SINDRI");
  filter_case(R"SINDRI(last)SINDRI", R"SINDRI([])SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("")SINDRI");
  filter_case(R"SINDRI(last)SINDRI", R"SINDRI({})SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Filter `last` was called on an incorrect value: got `{}` but expected a Vec<Value>)SINDRI");
  filter_case(R"SINDRI(nth)SINDRI", R"SINDRI([1,2,3,4])SINDRI", R"SINDRI({"n":1})SINDRI", true, R"SINDRI(2)SINDRI");
  filter_case(R"SINDRI(nth)SINDRI", R"SINDRI([1,2])SINDRI", R"SINDRI({"n":5})SINDRI", true, R"SINDRI("")SINDRI");
  filter_case(R"SINDRI(nth)SINDRI", R"SINDRI([])SINDRI", R"SINDRI({"n":1})SINDRI", true, R"SINDRI("")SINDRI");
  filter_case(R"SINDRI(nth)SINDRI", R"SINDRI([])SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("")SINDRI");
  filter_case(R"SINDRI(nth)SINDRI", R"SINDRI([1])SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(The `nth` filter has to have an `n` argument)SINDRI");
  filter_case(R"SINDRI(nth)SINDRI", R"SINDRI([1])SINDRI", R"SINDRI({"n":-1})SINDRI", false, R"SINDRI(Filter `nth` received an incorrect type for arg `n`: got `-1` but expected a usize)SINDRI");
  filter_case(R"SINDRI(nth)SINDRI", R"SINDRI([1])SINDRI", R"SINDRI({"n":0.0})SINDRI", false, R"SINDRI(Filter `nth` received an incorrect type for arg `n`: got `0.0` but expected a usize)SINDRI");
  filter_case(R"SINDRI(nth)SINDRI", R"SINDRI(1)SINDRI", R"SINDRI({"n":0})SINDRI", false, R"SINDRI(Filter `nth` was called on an incorrect value: got `1` but expected a Vec<Value>)SINDRI");
  filter_case(R"SINDRI(join)SINDRI", R"SINDRI(["Cats","Dogs"])SINDRI", R"SINDRI({"sep":"=="})SINDRI", true, R"SINDRI("Cats==Dogs")SINDRI");
  filter_case(R"SINDRI(join)SINDRI", R"SINDRI([1.2,3.4])SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("1.23.4")SINDRI");
  filter_case(R"SINDRI(join)SINDRI", R"SINDRI([])SINDRI", R"SINDRI({"sep":","})SINDRI", true, R"SINDRI("")SINDRI");
  filter_case(R"SINDRI(join)SINDRI", R"SINDRI([1,true,null,"x",[1,[2]],{"a":1},1.0,1e21])SINDRI", R"SINDRI({"sep":"|"})SINDRI", true, R"SINDRI("1|true||x|[1, [2]]|[object]|1|1000000000000000000000")SINDRI");
  filter_case(R"SINDRI(join)SINDRI", R"SINDRI([1])SINDRI", R"SINDRI({"sep":1})SINDRI", false, R"SINDRI(Filter `truncate` received an incorrect type for arg `sep`: got `1` but expected a String)SINDRI");
  filter_case(R"SINDRI(join)SINDRI", R"SINDRI("ab")SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Filter `join` was called on an incorrect value: got `"ab"` but expected a Vec<Value>)SINDRI");
  filter_case(R"SINDRI(sort)SINDRI", R"SINDRI([3,-1,2,5,4])SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI([-1,2,3,4,5])SINDRI");
  filter_case(R"SINDRI(sort)SINDRI", R"SINDRI([])SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI([])SINDRI");
  filter_case(R"SINDRI(sort)SINDRI", R"SINDRI(["b","A","a","é","c"])SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI(["A","a","b","c","é"])SINDRI");
  filter_case(R"SINDRI(sort)SINDRI", R"SINDRI([2,1.5,1,-0.5])SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI([-0.5,1,1.5,2])SINDRI");
  filter_case(R"SINDRI(sort)SINDRI", R"SINDRI([true,false,true])SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI([false,true,true])SINDRI");
  filter_case(R"SINDRI(sort)SINDRI", R"SINDRI([[1,2],[1],[]])SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI([[],[1],[1,2]])SINDRI");
  filter_case(R"SINDRI(sort)SINDRI", R"SINDRI([{"a":3,"b":5},{"a":2,"b":8},{"a":1,"b":6}])SINDRI", R"SINDRI({"attribute":"a"})SINDRI", true, R"SINDRI([{"a":1,"b":6},{"a":2,"b":8},{"a":3,"b":5}])SINDRI");
  filter_case(R"SINDRI(sort)SINDRI", R"SINDRI([{"a":3}])SINDRI", R"SINDRI({"attribute":"invalid_field"})SINDRI", false, R"SINDRI(attribute 'invalid_field' does not reference a field)SINDRI");
  filter_case(R"SINDRI(sort)SINDRI", R"SINDRI([12,[]])SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(expected number got [])SINDRI");
  filter_case(R"SINDRI(sort)SINDRI", R"SINDRI(["a",1])SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(expected string got 1)SINDRI");
  filter_case(R"SINDRI(sort)SINDRI", R"SINDRI([true,1])SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(expected bool got 1)SINDRI");
  filter_case(R"SINDRI(sort)SINDRI", R"SINDRI([[1],1])SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(expected array got 1)SINDRI");
  filter_case(R"SINDRI(sort)SINDRI", R"SINDRI([null,1])SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Null is not a sortable value)SINDRI");
  filter_case(R"SINDRI(sort)SINDRI", R"SINDRI([{"a":1}])SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Object is not a sortable value)SINDRI");
  filter_case(R"SINDRI(sort)SINDRI", R"SINDRI([{"a":{"b":2},"n":"x"},{"a":{"b":1},"n":"y"}])SINDRI", R"SINDRI({"attribute":"a.b"})SINDRI", true, R"SINDRI([{"a":{"b":1},"n":"y"},{"a":{"b":2},"n":"x"}])SINDRI");
  filter_case(R"SINDRI(sort)SINDRI", R"SINDRI([{"a":[3]},{"a":[1]}])SINDRI", R"SINDRI({"attribute":"a.0"})SINDRI", true, R"SINDRI([{"a":[1]},{"a":[3]}])SINDRI");
  filter_case(R"SINDRI(sort)SINDRI", R"SINDRI([{"a.b":2,"n":1},{"a.b":1,"n":2}])SINDRI", R"SINDRI({"attribute":"\"a.b\""})SINDRI", true, R"SINDRI([{"a.b":1,"n":2},{"a.b":2,"n":1}])SINDRI");
  filter_case(R"SINDRI(sort)SINDRI", R"SINDRI([{"a":1},{"b":1}])SINDRI", R"SINDRI({"attribute":"a"})SINDRI", false, R"SINDRI(attribute 'a' does not reference a field)SINDRI");
  filter_case(R"SINDRI(sort)SINDRI", R"SINDRI([2,1])SINDRI", R"SINDRI({"attribute":""})SINDRI", true, R"SINDRI([1,2])SINDRI");
  filter_case(R"SINDRI(sort)SINDRI", R"SINDRI([1])SINDRI", R"SINDRI({"attribute":1})SINDRI", false, R"SINDRI(Filter `sort` received an incorrect type for arg `attribute`: got `1` but expected a String)SINDRI");
  filter_case(R"SINDRI(sort)SINDRI", R"SINDRI("x")SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Filter `sort` was called on an incorrect value: got `"x"` but expected a Vec<Value>)SINDRI");
  filter_case(R"SINDRI(sort)SINDRI", R"SINDRI([{"k":"b","i":1},{"k":"a","i":2},{"k":"b","i":3},{"k":"a","i":4}])SINDRI", R"SINDRI({"attribute":"k"})SINDRI", true, R"SINDRI([{"i":2,"k":"a"},{"i":4,"k":"a"},{"i":1,"k":"b"},{"i":3,"k":"b"}])SINDRI");
  filter_case(R"SINDRI(unique)SINDRI", R"SINDRI([1,2,1,3,2])SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI([1,2,3])SINDRI");
  filter_case(R"SINDRI(unique)SINDRI", R"SINDRI(["b","A","a","c","B"])SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI(["b","A","c"])SINDRI");
  filter_case(R"SINDRI(unique)SINDRI", R"SINDRI(["b","A","a","c","B"])SINDRI", R"SINDRI({"case_sensitive":true})SINDRI", true, R"SINDRI(["b","A","a","c","B"])SINDRI");
  filter_case(R"SINDRI(unique)SINDRI", R"SINDRI([])SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI([])SINDRI");
  filter_case(R"SINDRI(unique)SINDRI", R"SINDRI([1.5,2])SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Unique floats are not implemented)SINDRI");
  filter_case(R"SINDRI(unique)SINDRI", R"SINDRI([1,1.5])SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(expected number got 1.5)SINDRI");
  filter_case(R"SINDRI(unique)SINDRI", R"SINDRI([1,"a"])SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(unique filter can't compare multiple types)SINDRI");
  filter_case(R"SINDRI(unique)SINDRI", R"SINDRI([[1]])SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Unique arrays are not implemented)SINDRI");
  filter_case(R"SINDRI(unique)SINDRI", R"SINDRI([{"a":1}])SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Unique objects are not implemented)SINDRI");
  filter_case(R"SINDRI(unique)SINDRI", R"SINDRI([null])SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Null is not a unique value)SINDRI");
  filter_case(R"SINDRI(unique)SINDRI", R"SINDRI([true,false,true])SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI([true,false])SINDRI");
  filter_case(R"SINDRI(unique)SINDRI", R"SINDRI([{"a":{"b":1},"i":0},{"a":{"b":1},"i":1},{"a":{"b":2},"i":2},{"c":1}])SINDRI", R"SINDRI({"attribute":"a.b"})SINDRI", true, R"SINDRI([{"a":{"b":1},"i":0},{"a":{"b":2},"i":2}])SINDRI");
  filter_case(R"SINDRI(unique)SINDRI", R"SINDRI([{"c":1}])SINDRI", R"SINDRI({"attribute":"a"})SINDRI", false, R"SINDRI(attribute 'a' does not reference a field)SINDRI");
  filter_case(R"SINDRI(unique)SINDRI", R"SINDRI([1])SINDRI", R"SINDRI({"case_sensitive":"no"})SINDRI", false, R"SINDRI(Filter `unique` received an incorrect type for arg `case_sensitive`: got `"no"` but expected a bool)SINDRI");
  filter_case(R"SINDRI(unique)SINDRI", R"SINDRI("s")SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Filter `unique` was called on an incorrect value: got `"s"` but expected a Vec<Value>)SINDRI");
  filter_case(R"SINDRI(unique)SINDRI", R"SINDRI(["ß","SS","ss"])SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI(["ß","SS"])SINDRI");
  filter_case(R"SINDRI(group_by)SINDRI", R"SINDRI([{"y":2020,"n":"a"},{"y":2019,"n":"b"},{"y":2020,"n":"c"},{"n":"d"},{"y":null,"n":"e"}])SINDRI", R"SINDRI({"attribute":"y"})SINDRI", true, R"SINDRI({"2019":[{"n":"b","y":2019}],"2020":[{"n":"a","y":2020},{"n":"c","y":2020}]})SINDRI");
  filter_case(R"SINDRI(group_by)SINDRI", R"SINDRI([{"t":{"k":"x"}},{"t":{"k":"y"}},{"t":{"k":"x"}}])SINDRI", R"SINDRI({"attribute":"t.k"})SINDRI", true, R"SINDRI({"x":[{"t":{"k":"x"}},{"t":{"k":"x"}}],"y":[{"t":{"k":"y"}}]})SINDRI");
}

TEST(BuiltinsReference_array, Reference1) {
  filter_case(R"SINDRI(group_by)SINDRI", R"SINDRI([{"t":true},{"t":1.5},{"t":[1]}])SINDRI", R"SINDRI({"attribute":"t"})SINDRI", true, R"SINDRI({"1.5":[{"t":1.5}],"[1]":[{"t":[1]}],"true":[{"t":true}]})SINDRI");
  filter_case(R"SINDRI(group_by)SINDRI", R"SINDRI([])SINDRI", R"SINDRI({"attribute":"a"})SINDRI", true, R"SINDRI({})SINDRI");
  filter_case(R"SINDRI(group_by)SINDRI", R"SINDRI([])SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI({})SINDRI");
  filter_case(R"SINDRI(group_by)SINDRI", R"SINDRI([1])SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(The `group_by` filter has to have an `attribute` argument)SINDRI");
  filter_case(R"SINDRI(group_by)SINDRI", R"SINDRI([1])SINDRI", R"SINDRI({"attribute":1})SINDRI", false, R"SINDRI(Filter `group_by` received an incorrect type for arg `attribute`: got `1` but expected a String)SINDRI");
  filter_case(R"SINDRI(group_by)SINDRI", R"SINDRI(1)SINDRI", R"SINDRI({"attribute":"a"})SINDRI", false, R"SINDRI(Filter `group_by` was called on an incorrect value: got `1` but expected a Vec<Value>)SINDRI");
  filter_case(R"SINDRI(filter)SINDRI", R"SINDRI([{"a":1},{"a":2},{"b":1},{"a":null},{"a":1.0}])SINDRI", R"SINDRI({"attribute":"a","value":1})SINDRI", true, R"SINDRI([{"a":1}])SINDRI");
  filter_case(R"SINDRI(filter)SINDRI", R"SINDRI([{"a":1},{"a":2},{"b":1},{"a":null}])SINDRI", R"SINDRI({"attribute":"a"})SINDRI", true, R"SINDRI([{"a":1},{"a":2}])SINDRI");
  filter_case(R"SINDRI(filter)SINDRI", R"SINDRI([{"a":1},{"a":"x"}])SINDRI", R"SINDRI({"attribute":"a","value":null})SINDRI", true, R"SINDRI([{"a":1},{"a":"x"}])SINDRI");
  filter_case(R"SINDRI(filter)SINDRI", R"SINDRI([{"a":{"b":[1]}},{"a":{"b":[2]}}])SINDRI", R"SINDRI({"attribute":"a.b","value":[1]})SINDRI", true, R"SINDRI([{"a":{"b":[1]}}])SINDRI");
  filter_case(R"SINDRI(filter)SINDRI", R"SINDRI([])SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI([])SINDRI");
  filter_case(R"SINDRI(filter)SINDRI", R"SINDRI([1])SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(The `filter` filter has to have an `attribute` argument)SINDRI");
  filter_case(R"SINDRI(filter)SINDRI", R"SINDRI([1])SINDRI", R"SINDRI({"attribute":2})SINDRI", false, R"SINDRI(Filter `filter` received an incorrect type for arg `attribute`: got `2` but expected a String)SINDRI");
  filter_case(R"SINDRI(filter)SINDRI", R"SINDRI({})SINDRI", R"SINDRI({"attribute":"a"})SINDRI", false, R"SINDRI(Filter `filter` was called on an incorrect value: got `{}` but expected a Vec<Value>)SINDRI");
  filter_case(R"SINDRI(map)SINDRI", R"SINDRI([{"a":1},{"a":2},{"b":1},{"a":null}])SINDRI", R"SINDRI({"attribute":"a"})SINDRI", true, R"SINDRI([1,2])SINDRI");
  filter_case(R"SINDRI(map)SINDRI", R"SINDRI([{"a":{"b":"x"}},{"a":[]}])SINDRI", R"SINDRI({"attribute":"a.b"})SINDRI", true, R"SINDRI(["x"])SINDRI");
  filter_case(R"SINDRI(map)SINDRI", R"SINDRI([[5,6],[7]])SINDRI", R"SINDRI({"attribute":"1"})SINDRI", true, R"SINDRI([6])SINDRI");
  filter_case(R"SINDRI(map)SINDRI", R"SINDRI([])SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI([])SINDRI");
  filter_case(R"SINDRI(map)SINDRI", R"SINDRI([1])SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(The `map` filter has to have an `attribute` argument)SINDRI");
  filter_case(R"SINDRI(map)SINDRI", R"SINDRI([1])SINDRI", R"SINDRI({"attribute":[]})SINDRI", false, R"SINDRI(Filter `map` received an incorrect type for arg `attribute`: got `[]` but expected a String)SINDRI");
  filter_case(R"SINDRI(map)SINDRI", R"SINDRI(null)SINDRI", R"SINDRI({"attribute":"a"})SINDRI", false, R"SINDRI(Filter `map` was called on an incorrect value: got `null` but expected a Vec<Value>)SINDRI");
  filter_case(R"SINDRI(slice)SINDRI", R"SINDRI([1,2,3,4,5])SINDRI", R"SINDRI({"start":1})SINDRI", true, R"SINDRI([2,3,4,5])SINDRI");
  filter_case(R"SINDRI(slice)SINDRI", R"SINDRI([1,2,3,4,5])SINDRI", R"SINDRI({"end":2})SINDRI", true, R"SINDRI([1,2])SINDRI");
  filter_case(R"SINDRI(slice)SINDRI", R"SINDRI([1,2,3,4,5])SINDRI", R"SINDRI({"start":1,"end":3})SINDRI", true, R"SINDRI([2,3])SINDRI");
  filter_case(R"SINDRI(slice)SINDRI", R"SINDRI([1,2,3,4,5])SINDRI", R"SINDRI({"start":-2})SINDRI", true, R"SINDRI([4,5])SINDRI");
  filter_case(R"SINDRI(slice)SINDRI", R"SINDRI([1,2,3,4,5])SINDRI", R"SINDRI({"end":-1})SINDRI", true, R"SINDRI([1,2,3,4])SINDRI");
  filter_case(R"SINDRI(slice)SINDRI", R"SINDRI([1,2,3,4,5])SINDRI", R"SINDRI({"start":-10,"end":100})SINDRI", true, R"SINDRI([1,2,3,4,5])SINDRI");
  filter_case(R"SINDRI(slice)SINDRI", R"SINDRI([1,2,3,4,5])SINDRI", R"SINDRI({"start":3,"end":1})SINDRI", true, R"SINDRI([])SINDRI");
  filter_case(R"SINDRI(slice)SINDRI", R"SINDRI([1,2,3,4,5])SINDRI", R"SINDRI({"start":1.9,"end":3.9})SINDRI", true, R"SINDRI([2,3])SINDRI");
  filter_case(R"SINDRI(slice)SINDRI", R"SINDRI([1,2,3])SINDRI", R"SINDRI({"start":"a"})SINDRI", false, R"SINDRI(Filter `slice` received an incorrect type for arg `start`: got `"a"` but expected a f64)SINDRI");
  filter_case(R"SINDRI(slice)SINDRI", R"SINDRI([1,2,3])SINDRI", R"SINDRI({"end":null})SINDRI", false, R"SINDRI(Filter `slice` received an incorrect type for arg `end`: got `null` but expected a f64)SINDRI");
  filter_case(R"SINDRI(slice)SINDRI", R"SINDRI([])SINDRI", R"SINDRI({"start":"a"})SINDRI", true, R"SINDRI([])SINDRI");
  filter_case(R"SINDRI(slice)SINDRI", R"SINDRI("abc")SINDRI", R"SINDRI({"start":1})SINDRI", false, R"SINDRI(Filter `slice` was called on an incorrect value: got `"abc"` but expected a Vec<Value>)SINDRI");
  filter_case(R"SINDRI(concat)SINDRI", R"SINDRI([1,2])SINDRI", R"SINDRI({"with":[3,4]})SINDRI", true, R"SINDRI([1,2,3,4])SINDRI");
  filter_case(R"SINDRI(concat)SINDRI", R"SINDRI([1,2])SINDRI", R"SINDRI({"with":3})SINDRI", true, R"SINDRI([1,2,3])SINDRI");
  filter_case(R"SINDRI(concat)SINDRI", R"SINDRI([])SINDRI", R"SINDRI({"with":{"a":1}})SINDRI", true, R"SINDRI([{"a":1}])SINDRI");
  filter_case(R"SINDRI(concat)SINDRI", R"SINDRI([1])SINDRI", R"SINDRI({"with":[[2]]})SINDRI", true, R"SINDRI([1,[2]])SINDRI");
  filter_case(R"SINDRI(concat)SINDRI", R"SINDRI([1])SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(The `concat` filter has to have a `with` argument)SINDRI");
  filter_case(R"SINDRI(concat)SINDRI", R"SINDRI("a")SINDRI", R"SINDRI({"with":1})SINDRI", false, R"SINDRI(Filter `concat` was called on an incorrect value: got `"a"` but expected a Vec<Value>)SINDRI");
}

