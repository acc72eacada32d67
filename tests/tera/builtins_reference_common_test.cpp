// Generated from Tera 1.17 reference renderer outputs (tests/tera/builtins_cases/*.tsv).
// Each line: kind, name, input JSON, arguments JSON -> expected JSON output or error message.
#include "builtins_test_util.hpp"

TEST(BuiltinsReference_common, Reference0) {
  filter_case(R"SINDRI(length)SINDRI", R"SINDRI([1,2,3])SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI(3)SINDRI");
  filter_case(R"SINDRI(length)SINDRI", R"SINDRI({"a":1,"b":2})SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI(2)SINDRI");
  filter_case(R"SINDRI(length)SINDRI", R"SINDRI("héllo")SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI(5)SINDRI");
  filter_case(R"SINDRI(length)SINDRI", R"SINDRI("👨‍👩‍👧‍👦")SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI(7)SINDRI");
  filter_case(R"SINDRI(length)SINDRI", R"SINDRI("")SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI(0)SINDRI");
  filter_case(R"SINDRI(length)SINDRI", R"SINDRI(1)SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Filter `length` was used on a value that isn't an array, an object, or a string.)SINDRI");
  filter_case(R"SINDRI(length)SINDRI", R"SINDRI(null)SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Filter `length` was used on a value that isn't an array, an object, or a string.)SINDRI");
  filter_case(R"SINDRI(length)SINDRI", R"SINDRI(true)SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Filter `length` was used on a value that isn't an array, an object, or a string.)SINDRI");
  filter_case(R"SINDRI(reverse)SINDRI", R"SINDRI([1,2,3])SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI([3,2,1])SINDRI");
  filter_case(R"SINDRI(reverse)SINDRI", R"SINDRI("héllo")SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("olléh")SINDRI");
  filter_case(R"SINDRI(reverse)SINDRI", R"SINDRI("")SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("")SINDRI");
  filter_case(R"SINDRI(reverse)SINDRI", R"SINDRI([])SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI([])SINDRI");
  filter_case(R"SINDRI(reverse)SINDRI", R"SINDRI(1)SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Filter `reverse` received an incorrect type for arg `value`: got `1` but expected Array|String)SINDRI");
  filter_case(R"SINDRI(reverse)SINDRI", R"SINDRI({"a":1})SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Filter `reverse` received an incorrect type for arg `value`: got `{"a":1}` but expected Array|String)SINDRI");
  filter_case(R"SINDRI(reverse)SINDRI", R"SINDRI(null)SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Filter `reverse` received an incorrect type for arg `value`: got `null` but expected Array|String)SINDRI");
  filter_case(R"SINDRI(json_encode)SINDRI", R"SINDRI({"b":[1,2.5,"x"],"a":{"c":null}})SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("{\"a\":{\"c\":null},\"b\":[1,2.5,\"x\"]}")SINDRI");
  filter_case(R"SINDRI(json_encode)SINDRI", R"SINDRI({"b":[1,2.5,"x"],"a":{"c":null,"d":[]},"e":{}})SINDRI", R"SINDRI({"pretty":true})SINDRI", true, R"SINDRI("{\n  \"a\": {\n    \"c\": null,\n    \"d\": []\n  },\n  \"b\": [\n    1,\n    2.5,\n    \"x\"\n  ],\n  \"e\": {}\n}")SINDRI");
  filter_case(R"SINDRI(json_encode)SINDRI", R"SINDRI("é\u0001\"<")SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("\"é\\u0001\\\"<\"")SINDRI");
  filter_case(R"SINDRI(json_encode)SINDRI", R"SINDRI(1e100)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("1e100")SINDRI");
  filter_case(R"SINDRI(json_encode)SINDRI", R"SINDRI(0.1)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("0.1")SINDRI");
  filter_case(R"SINDRI(json_encode)SINDRI", R"SINDRI(1.0)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("1.0")SINDRI");
  filter_case(R"SINDRI(json_encode)SINDRI", R"SINDRI([])SINDRI", R"SINDRI({"pretty":true})SINDRI", true, R"SINDRI("[]")SINDRI");
  filter_case(R"SINDRI(json_encode)SINDRI", R"SINDRI(1)SINDRI", R"SINDRI({"pretty":"yes"})SINDRI", true, R"SINDRI("1")SINDRI");
  filter_case(R"SINDRI(json_encode)SINDRI", R"SINDRI(null)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("null")SINDRI");
  filter_case(R"SINDRI(as_str)SINDRI", R"SINDRI(1)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("1")SINDRI");
  filter_case(R"SINDRI(as_str)SINDRI", R"SINDRI(1.5)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("1.5")SINDRI");
  filter_case(R"SINDRI(as_str)SINDRI", R"SINDRI(1.0)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("1")SINDRI");
  filter_case(R"SINDRI(as_str)SINDRI", R"SINDRI(1e21)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("1000000000000000000000")SINDRI");
  filter_case(R"SINDRI(as_str)SINDRI", R"SINDRI(1e-7)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("0.0000001")SINDRI");
  filter_case(R"SINDRI(as_str)SINDRI", R"SINDRI([1,"a",[true,null]])SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("[1, a, [true, ]]")SINDRI");
  filter_case(R"SINDRI(as_str)SINDRI", R"SINDRI({"a":1})SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("[object]")SINDRI");
  filter_case(R"SINDRI(as_str)SINDRI", R"SINDRI(null)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("")SINDRI");
  filter_case(R"SINDRI(as_str)SINDRI", R"SINDRI(true)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("true")SINDRI");
  filter_case(R"SINDRI(as_str)SINDRI", R"SINDRI("s")SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("s")SINDRI");
  filter_case(R"SINDRI(get)SINDRI", R"SINDRI({"a":1})SINDRI", R"SINDRI({"key":"a"})SINDRI", true, R"SINDRI(1)SINDRI");
  filter_case(R"SINDRI(get)SINDRI", R"SINDRI({"a":1})SINDRI", R"SINDRI({"key":"b","default":"d"})SINDRI", true, R"SINDRI("d")SINDRI");
  filter_case(R"SINDRI(get)SINDRI", R"SINDRI({"a":1})SINDRI", R"SINDRI({"key":"b"})SINDRI", false, R"SINDRI(Filter `get` tried to get key `b` but it wasn't found)SINDRI");
  filter_case(R"SINDRI(get)SINDRI", R"SINDRI({"a.b":1})SINDRI", R"SINDRI({"key":"a.b"})SINDRI", true, R"SINDRI(1)SINDRI");
  filter_case(R"SINDRI(get)SINDRI", R"SINDRI([1])SINDRI", R"SINDRI({"key":"0"})SINDRI", false, R"SINDRI(Filter `get` was used on a value that isn't an object)SINDRI");
  filter_case(R"SINDRI(get)SINDRI", R"SINDRI({"a":1})SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(The `get` filter has to have an `key` argument)SINDRI");
  filter_case(R"SINDRI(get)SINDRI", R"SINDRI({"a":1})SINDRI", R"SINDRI({"key":1})SINDRI", false, R"SINDRI(Filter `get` received an incorrect type for arg `key`: got `1` but expected a String)SINDRI");
  filter_case(R"SINDRI(get)SINDRI", R"SINDRI(1)SINDRI", R"SINDRI({"default":1})SINDRI", false, R"SINDRI(The `get` filter has to have an `key` argument)SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(0)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("1970-01-01")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(1482720453)SINDRI", R"SINDRI({"format":"%Y-%m-%d %H:%M:%S %a %A %b %B %h %e %j %U %W %V %G %g %u %w %I %l %p %P %C %y %D %F %T %R %r %v %c %x %X %s %f %% %t|%n|"})SINDRI", true, R"SINDRI("2016-12-26 02:47:33 Mon Monday Dec December Dec 26 361 52 52 52 2016 16 1 1 02  2 AM am 20 16 12/26/16 2016-12-26 02:47:33 02:47 02:47:33 AM 26-Dec-2016 Mon Dec 26 02:47:33 2016 12/26/16 02:47:33 1482720453 000000000 % \t|\n|")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(-86401)SINDRI", R"SINDRI({"format":"%F %T %s"})SINDRI", true, R"SINDRI("1969-12-30 23:59:59 -86401")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(1482720453)SINDRI", R"SINDRI({"format":"%-d %_m %0e %-H %_Y %-j"})SINDRI", true, R"SINDRI("26 12 26 2 2016 361")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(1482720453)SINDRI", R"SINDRI({"timezone":"America/New_York","format":"%F %T %Z %z %:z %::z %:::z %+"})SINDRI", true, R"SINDRI("2016-12-25 21:47:33 EST -0500 -05:00 -05:00:00 -05 2016-12-25T21:47:33-05:00")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(1482720453)SINDRI", R"SINDRI({"timezone":"Europe/Berlin","format":"%c %Z"})SINDRI", true, R"SINDRI("Mon Dec 26 03:47:33 2016 CET")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(1593000000)SINDRI", R"SINDRI({"timezone":"Europe/Berlin","format":"%c %Z %z"})SINDRI", true, R"SINDRI("Wed Jun 24 14:00:00 2020 CEST +0200")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(1593000000)SINDRI", R"SINDRI({"timezone":"Asia/Kolkata","format":"%T %Z %z"})SINDRI", true, R"SINDRI("17:30:00 IST +0530")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(1593000000)SINDRI", R"SINDRI({"timezone":"Australia/Sydney","format":"%F %T %Z"})SINDRI", true, R"SINDRI("2020-06-24 22:00:00 AEST")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(1593000000)SINDRI", R"SINDRI({"timezone":"UTC","format":"%F %T %Z %z"})SINDRI", true, R"SINDRI("2020-06-24 12:00:00 UTC +0000")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(1593000000)SINDRI", R"SINDRI({"timezone":"Asia/Dubai","format":"%Z"})SINDRI", true, R"SINDRI("+04")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(2500000000)SINDRI", R"SINDRI({"timezone":"America/New_York","format":"%F %T %Z"})SINDRI", true, R"SINDRI("2049-03-22 00:26:40 EDT")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(2510000000)SINDRI", R"SINDRI({"timezone":"America/New_York","format":"%F %T %Z"})SINDRI", true, R"SINDRI("2049-07-15 18:13:20 EDT")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(4102444800)SINDRI", R"SINDRI({"timezone":"Europe/London","format":"%F %T %Z"})SINDRI", true, R"SINDRI("2100-01-01 00:00:00 GMT")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(0)SINDRI", R"SINDRI({"timezone":"Mars/Olympus"})SINDRI", false, R"SINDRI(Error parsing `Mars/Olympus` as a timezone)SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(0)SINDRI", R"SINDRI({"timezone":1})SINDRI", false, R"SINDRI(Filter `date` received an incorrect type for arg `timezone`: got `1` but expected a String)SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(0)SINDRI", R"SINDRI({"format":"%Q"})SINDRI", false, R"SINDRI(Invalid date format `%Q`)SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(0)SINDRI", R"SINDRI({"format":"%"})SINDRI", false, R"SINDRI(Invalid date format `%`)SINDRI");
}

TEST(BuiltinsReference_common, Reference1) {
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(0)SINDRI", R"SINDRI({"format":"%-D"})SINDRI", false, R"SINDRI(Invalid date format `%-D`)SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(0)SINDRI", R"SINDRI({"format":"%.5f"})SINDRI", false, R"SINDRI(Invalid date format `%.5f`)SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(0)SINDRI", R"SINDRI({"format":1})SINDRI", false, R"SINDRI(Filter `date` received an incorrect type for arg `format`: got `1` but expected a String)SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI("2020-01-01T10:00:00+02:00")SINDRI", R"SINDRI({"format":"%F %T %Z %z %s"})SINDRI", true, R"SINDRI("2020-01-01 10:00:00 +02:00 +0200 1577865600")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI("2020-01-01T10:00:00.123+02:00")SINDRI", R"SINDRI({"format":"%T%.f %.3f %.6f %.9f %3f %6f %9f %f"})SINDRI", true, R"SINDRI("10:00:00.123 .123 .123000 .123000000 123 123000 123000000 123000000")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI("2020-01-01T10:00:00.123456Z")SINDRI", R"SINDRI({"format":"%T%.f %Z"})SINDRI", true, R"SINDRI("10:00:00.123456 +00:00")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI("2020-01-01T10:00:00-05:30")SINDRI", R"SINDRI({"timezone":"Europe/Paris","format":"%F %T %Z"})SINDRI", true, R"SINDRI("2020-01-01 16:30:00 CET")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI("2020-01-01T10:00:00")SINDRI", R"SINDRI({"format":"%F %T %Z %z"})SINDRI", true, R"SINDRI("2020-01-01 10:00:00 UTC +0000")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI("2020-01-01T10:00:00")SINDRI", R"SINDRI({"timezone":"Asia/Tokyo","format":"%F %T %Z"})SINDRI", true, R"SINDRI("2020-01-01 10:00:00 UTC")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI("2020-01-01")SINDRI", R"SINDRI({"format":"%F %T %Z %A"})SINDRI", true, R"SINDRI("2020-01-01 00:00:00 UTC Wednesday")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI("2020-01-01")SINDRI", R"SINDRI({"timezone":"Asia/Tokyo","format":"%F %T %Z"})SINDRI", true, R"SINDRI("2020-01-01 00:00:00 UTC")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI("2020-02-30")SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Error parsing `"2020-02-30"` as YYYY-MM-DD date)SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI("2020-1-1")SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("2020-01-01")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI("20-01-01")SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("0020-01-01")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI("2020-01-01 10:00:00")SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Error parsing `"2020-01-01 10:00:00"` as YYYY-MM-DD date)SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI("2020-01-01T25:00:00Z")SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Error parsing `"2020-01-01T25:00:00Z"` as rfc3339 date or naive datetime)SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI("x")SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Error parsing `"x"` as YYYY-MM-DD date)SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI("xTy")SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Error parsing `"xTy"` as rfc3339 date or naive datetime)SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI("2020-01-01T10:00:00+0200")SINDRI", R"SINDRI({"format":"%+"})SINDRI", true, R"SINDRI("2020-01-01T10:00:00+02:00")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(1.5)SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Filter `date` was invoked on a float: 1.5)SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(true)SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Filter `date` received an incorrect type for arg `value`: got `Bool(true)` but expected i64|u64|String)SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(null)SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Filter `date` received an incorrect type for arg `value`: got `Null` but expected i64|u64|String)SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI([1,"a"])SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Filter `date` received an incorrect type for arg `value`: got `Array [Number(1), String("a")]` but expected i64|u64|String)SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI({"a":"x\"y"})SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Filter `date` received an incorrect type for arg `value`: got `Object {"a": String("x\"y")}` but expected i64|u64|String)SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(-62135596800)SINDRI", R"SINDRI({"format":"%Y %C %y %G"})SINDRI", true, R"SINDRI("0001 00 01 0001")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(253402300800)SINDRI", R"SINDRI({"format":"%Y|%-Y|%_Y"})SINDRI", true, R"SINDRI("+10000|+10000|+10000")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(-62167219200)SINDRI", R"SINDRI({"format":"%Y|%-Y|%_Y|%C|%y"})SINDRI", true, R"SINDRI("0000|0|   0|00|00")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(1609459200)SINDRI", R"SINDRI({"format":"%G-W%V-%u %U %W %j"})SINDRI", true, R"SINDRI("2020-W53-5 00 00 001")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(1609372800)SINDRI", R"SINDRI({"format":"%G-W%V-%u %U %W %j"})SINDRI", true, R"SINDRI("2020-W53-4 52 52 366")SINDRI");
  filter_case(R"SINDRI(date)SINDRI", R"SINDRI(1704067200)SINDRI", R"SINDRI({"format":"%G-W%V-%u %U %W"})SINDRI", true, R"SINDRI("2024-W01-1 01 01")SINDRI");
}

