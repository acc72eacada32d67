// Generated from Tera 1.17 reference renderer outputs (tests/tera/builtins_cases/*.tsv).
// Each line: kind, name, input JSON, arguments JSON -> expected JSON output or error message.
#include "builtins_test_util.hpp"

TEST(BuiltinsReference_tests, Reference0) {
  test_case(R"SINDRI(defined)SINDRI", R"SINDRI(1)SINDRI", R"SINDRI([])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(defined)SINDRI", nullptr, R"SINDRI([])SINDRI", true, R"SINDRI(false)SINDRI");
  test_case(R"SINDRI(defined)SINDRI", R"SINDRI(null)SINDRI", R"SINDRI([])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(undefined)SINDRI", nullptr, R"SINDRI([])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(undefined)SINDRI", R"SINDRI(1)SINDRI", R"SINDRI([])SINDRI", true, R"SINDRI(false)SINDRI");
  test_case(R"SINDRI(string)SINDRI", R"SINDRI("a")SINDRI", R"SINDRI([])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(string)SINDRI", R"SINDRI(1)SINDRI", R"SINDRI([])SINDRI", true, R"SINDRI(false)SINDRI");
  test_case(R"SINDRI(string)SINDRI", nullptr, R"SINDRI([])SINDRI", false, R"SINDRI(Tester `string` was called on an undefined variable)SINDRI");
  test_case(R"SINDRI(number)SINDRI", R"SINDRI(1)SINDRI", R"SINDRI([])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(number)SINDRI", R"SINDRI(1.5)SINDRI", R"SINDRI([])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(number)SINDRI", R"SINDRI("1")SINDRI", R"SINDRI([])SINDRI", true, R"SINDRI(false)SINDRI");
  test_case(R"SINDRI(number)SINDRI", nullptr, R"SINDRI([])SINDRI", false, R"SINDRI(Tester `number` was called on an undefined variable)SINDRI");
  test_case(R"SINDRI(odd)SINDRI", R"SINDRI(1)SINDRI", R"SINDRI([])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(odd)SINDRI", R"SINDRI(2)SINDRI", R"SINDRI([])SINDRI", true, R"SINDRI(false)SINDRI");
  test_case(R"SINDRI(odd)SINDRI", R"SINDRI(-3)SINDRI", R"SINDRI([])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(odd)SINDRI", R"SINDRI(1.5)SINDRI", R"SINDRI([])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(odd)SINDRI", R"SINDRI("1")SINDRI", R"SINDRI([])SINDRI", false, R"SINDRI(Tester `odd` was called on a variable that isn't a number)SINDRI");
  test_case(R"SINDRI(odd)SINDRI", nullptr, R"SINDRI([])SINDRI", false, R"SINDRI(Tester `odd` was called on an undefined variable)SINDRI");
  test_case(R"SINDRI(odd)SINDRI", R"SINDRI(1)SINDRI", R"SINDRI([1])SINDRI", false, R"SINDRI(Tester `odd` was called with some args but this test doesn't take args)SINDRI");
  test_case(R"SINDRI(even)SINDRI", R"SINDRI(2)SINDRI", R"SINDRI([])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(even)SINDRI", R"SINDRI(1)SINDRI", R"SINDRI([])SINDRI", true, R"SINDRI(false)SINDRI");
  test_case(R"SINDRI(even)SINDRI", R"SINDRI(0.5)SINDRI", R"SINDRI([])SINDRI", true, R"SINDRI(false)SINDRI");
  test_case(R"SINDRI(even)SINDRI", R"SINDRI("2")SINDRI", R"SINDRI([])SINDRI", false, R"SINDRI(Tester `odd` was called on a variable that isn't a number)SINDRI");
  test_case(R"SINDRI(even)SINDRI", nullptr, R"SINDRI([])SINDRI", false, R"SINDRI(Tester `even` was called on an undefined variable)SINDRI");
  test_case(R"SINDRI(even)SINDRI", R"SINDRI(2)SINDRI", R"SINDRI([1])SINDRI", false, R"SINDRI(Tester `even` was called with some args but this test doesn't take args)SINDRI");
  test_case(R"SINDRI(divisibleby)SINDRI", R"SINDRI(10)SINDRI", R"SINDRI([5])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(divisibleby)SINDRI", R"SINDRI(10)SINDRI", R"SINDRI([3])SINDRI", true, R"SINDRI(false)SINDRI");
  test_case(R"SINDRI(divisibleby)SINDRI", R"SINDRI(10)SINDRI", R"SINDRI([0])SINDRI", true, R"SINDRI(false)SINDRI");
  test_case(R"SINDRI(divisibleby)SINDRI", R"SINDRI(7.5)SINDRI", R"SINDRI([2.5])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(divisibleby)SINDRI", R"SINDRI("10")SINDRI", R"SINDRI([5])SINDRI", false, R"SINDRI(Tester `divisibleby` was called on a variable that isn't a number)SINDRI");
  test_case(R"SINDRI(divisibleby)SINDRI", R"SINDRI(10)SINDRI", R"SINDRI(["5"])SINDRI", false, R"SINDRI(Tester `divisibleby` was called with a parameter that isn't a number)SINDRI");
  test_case(R"SINDRI(divisibleby)SINDRI", R"SINDRI(10)SINDRI", R"SINDRI([5,1])SINDRI", false, R"SINDRI(Tester `divisibleby` was called with 2 args, the max number is 1)SINDRI");
  test_case(R"SINDRI(divisibleby)SINDRI", nullptr, R"SINDRI([5])SINDRI", false, R"SINDRI(Tester `divisibleby` was called on an undefined variable)SINDRI");
  test_case(R"SINDRI(iterable)SINDRI", R"SINDRI([])SINDRI", R"SINDRI([])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(iterable)SINDRI", R"SINDRI({})SINDRI", R"SINDRI([])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(iterable)SINDRI", R"SINDRI("abc")SINDRI", R"SINDRI([])SINDRI", true, R"SINDRI(false)SINDRI");
  test_case(R"SINDRI(iterable)SINDRI", nullptr, R"SINDRI([])SINDRI", false, R"SINDRI(Tester `iterable` was called on an undefined variable)SINDRI");
  test_case(R"SINDRI(object)SINDRI", R"SINDRI({})SINDRI", R"SINDRI([])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(object)SINDRI", R"SINDRI([])SINDRI", R"SINDRI([])SINDRI", true, R"SINDRI(false)SINDRI");
  test_case(R"SINDRI(object)SINDRI", R"SINDRI(null)SINDRI", R"SINDRI([])SINDRI", true, R"SINDRI(false)SINDRI");
  test_case(R"SINDRI(starting_with)SINDRI", R"SINDRI("hello")SINDRI", R"SINDRI(["he"])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(starting_with)SINDRI", R"SINDRI("hello")SINDRI", R"SINDRI(["lo"])SINDRI", true, R"SINDRI(false)SINDRI");
  test_case(R"SINDRI(starting_with)SINDRI", R"SINDRI("hello")SINDRI", R"SINDRI([""])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(starting_with)SINDRI", R"SINDRI(1)SINDRI", R"SINDRI(["1"])SINDRI", false, R"SINDRI(Tester `starting_with` was called on a variable that isn't a string)SINDRI");
  test_case(R"SINDRI(starting_with)SINDRI", R"SINDRI("1")SINDRI", R"SINDRI([1])SINDRI", false, R"SINDRI(Tester `starting_with` was called with a parameter that isn't a string)SINDRI");
  test_case(R"SINDRI(starting_with)SINDRI", nullptr, R"SINDRI(["a"])SINDRI", false, R"SINDRI(Tester `starting_with` was called on an undefined variable)SINDRI");
  test_case(R"SINDRI(starting_with)SINDRI", R"SINDRI("a")SINDRI", R"SINDRI(["a","b"])SINDRI", false, R"SINDRI(Tester `starting_with` was called with 2 args, the max number is 1)SINDRI");
  test_case(R"SINDRI(ending_with)SINDRI", R"SINDRI("hello")SINDRI", R"SINDRI(["lo"])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(ending_with)SINDRI", R"SINDRI("hello")SINDRI", R"SINDRI(["he"])SINDRI", true, R"SINDRI(false)SINDRI");
  test_case(R"SINDRI(ending_with)SINDRI", R"SINDRI("lo")SINDRI", R"SINDRI(["hello"])SINDRI", true, R"SINDRI(false)SINDRI");
  test_case(R"SINDRI(ending_with)SINDRI", R"SINDRI([])SINDRI", R"SINDRI(["a"])SINDRI", false, R"SINDRI(Tester `ending_with` was called on a variable that isn't a string)SINDRI");
  test_case(R"SINDRI(containing)SINDRI", R"SINDRI("hello")SINDRI", R"SINDRI(["ell"])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(containing)SINDRI", R"SINDRI("hello")SINDRI", R"SINDRI(["x"])SINDRI", true, R"SINDRI(false)SINDRI");
  test_case(R"SINDRI(containing)SINDRI", R"SINDRI([1,2,"a"])SINDRI", R"SINDRI([2])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(containing)SINDRI", R"SINDRI([1,2])SINDRI", R"SINDRI([2.0])SINDRI", true, R"SINDRI(false)SINDRI");
  test_case(R"SINDRI(containing)SINDRI", R"SINDRI([[1]])SINDRI", R"SINDRI([[1]])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(containing)SINDRI", R"SINDRI({"a":1})SINDRI", R"SINDRI(["a"])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(containing)SINDRI", R"SINDRI({"a":1})SINDRI", R"SINDRI(["b"])SINDRI", true, R"SINDRI(false)SINDRI");
  test_case(R"SINDRI(containing)SINDRI", R"SINDRI({"a":1})SINDRI", R"SINDRI([1])SINDRI", false, R"SINDRI(Tester `containing` was called with a parameter that isn't a string)SINDRI");
  test_case(R"SINDRI(containing)SINDRI", R"SINDRI("a")SINDRI", R"SINDRI([1])SINDRI", false, R"SINDRI(Tester `containing` was called with a parameter that isn't a string)SINDRI");
}

TEST(BuiltinsReference_tests, Reference1) {
  test_case(R"SINDRI(containing)SINDRI", R"SINDRI(1)SINDRI", R"SINDRI([1])SINDRI", false, R"SINDRI(Tester `containing` can only be used on string, array or map)SINDRI");
  test_case(R"SINDRI(containing)SINDRI", nullptr, R"SINDRI([1])SINDRI", false, R"SINDRI(Tester `containing` was called on an undefined variable)SINDRI");
  test_case(R"SINDRI(matching)SINDRI", R"SINDRI("hello")SINDRI", R"SINDRI(["^h.*o$"])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(matching)SINDRI", R"SINDRI("hello")SINDRI", R"SINDRI(["^x"])SINDRI", true, R"SINDRI(false)SINDRI");
  test_case(R"SINDRI(matching)SINDRI", R"SINDRI("abc123")SINDRI", R"SINDRI(["\\d+"])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(matching)SINDRI", R"SINDRI("héllo")SINDRI", R"SINDRI(["^\\w+$"])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(matching)SINDRI", R"SINDRI("a\n")SINDRI", R"SINDRI(["a$"])SINDRI", true, R"SINDRI(false)SINDRI");
  test_case(R"SINDRI(matching)SINDRI", R"SINDRI("a\nb")SINDRI", R"SINDRI(["(?m)^b$"])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(matching)SINDRI", R"SINDRI("Hello")SINDRI", R"SINDRI(["(?i)^hello$"])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(matching)SINDRI", R"SINDRI("x")SINDRI", R"SINDRI(["(?P<n>x)"])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(matching)SINDRI", R"SINDRI("٣")SINDRI", R"SINDRI(["^\\d$"])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(matching)SINDRI", R"SINDRI("a b")SINDRI", R"SINDRI(["a\\sb"])SINDRI", true, R"SINDRI(true)SINDRI");
  test_case(R"SINDRI(matching)SINDRI", R"SINDRI(1)SINDRI", R"SINDRI(["1"])SINDRI", false, R"SINDRI(Tester `matching` was called on a variable that isn't a string)SINDRI");
  test_case(R"SINDRI(matching)SINDRI", R"SINDRI("1")SINDRI", R"SINDRI([1])SINDRI", false, R"SINDRI(Tester `matching` was called with a parameter that isn't a string)SINDRI");
  test_case(R"SINDRI(matching)SINDRI", nullptr, R"SINDRI(["a"])SINDRI", false, R"SINDRI(Tester `matching` was called on an undefined variable)SINDRI");
}

