// Generated from Tera 1.17 reference renderer outputs (tests/tera/builtins_cases/*.tsv).
// Each line: kind, name, input JSON, arguments JSON -> expected JSON output or error message.
#include "builtins_test_util.hpp"

TEST(BuiltinsReference_number, Reference0) {
  filter_case(R"SINDRI(pluralize)SINDRI", R"SINDRI(1)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("")SINDRI");
  filter_case(R"SINDRI(pluralize)SINDRI", R"SINDRI(2)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("s")SINDRI");
  filter_case(R"SINDRI(pluralize)SINDRI", R"SINDRI(0)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("s")SINDRI");
  filter_case(R"SINDRI(pluralize)SINDRI", R"SINDRI(-1)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("")SINDRI");
  filter_case(R"SINDRI(pluralize)SINDRI", R"SINDRI(1.0)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("")SINDRI");
  filter_case(R"SINDRI(pluralize)SINDRI", R"SINDRI(1.0000000000000002)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("")SINDRI");
  filter_case(R"SINDRI(pluralize)SINDRI", R"SINDRI(2)SINDRI", R"SINDRI({"plural":"es"})SINDRI", true, R"SINDRI("es")SINDRI");
  filter_case(R"SINDRI(pluralize)SINDRI", R"SINDRI(1)SINDRI", R"SINDRI({"singular":"y","plural":"ies"})SINDRI", true, R"SINDRI("y")SINDRI");
  filter_case(R"SINDRI(pluralize)SINDRI", R"SINDRI("1")SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Filter `pluralize` was called on an incorrect value: got `"1"` but expected a f64)SINDRI");
  filter_case(R"SINDRI(pluralize)SINDRI", R"SINDRI(1)SINDRI", R"SINDRI({"plural":1})SINDRI", false, R"SINDRI(Filter `pluralize` received an incorrect type for arg `plural`: got `1` but expected a String)SINDRI");
  filter_case(R"SINDRI(pluralize)SINDRI", R"SINDRI(1)SINDRI", R"SINDRI({"singular":null})SINDRI", false, R"SINDRI(Filter `pluralize` received an incorrect type for arg `singular`: got `null` but expected a String)SINDRI");
  filter_case(R"SINDRI(round)SINDRI", R"SINDRI(2.1)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI(2.0)SINDRI");
  filter_case(R"SINDRI(round)SINDRI", R"SINDRI(2.5)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI(3.0)SINDRI");
  filter_case(R"SINDRI(round)SINDRI", R"SINDRI(-2.5)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI(-3.0)SINDRI");
  filter_case(R"SINDRI(round)SINDRI", R"SINDRI(3)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI(3.0)SINDRI");
  filter_case(R"SINDRI(round)SINDRI", R"SINDRI(3.15159265359)SINDRI", R"SINDRI({"precision":2})SINDRI", true, R"SINDRI(3.15)SINDRI");
  filter_case(R"SINDRI(round)SINDRI", R"SINDRI(2.1)SINDRI", R"SINDRI({"method":"ceil"})SINDRI", true, R"SINDRI(3.0)SINDRI");
  filter_case(R"SINDRI(round)SINDRI", R"SINDRI(2.11)SINDRI", R"SINDRI({"method":"ceil","precision":1})SINDRI", true, R"SINDRI(2.2)SINDRI");
  filter_case(R"SINDRI(round)SINDRI", R"SINDRI(2.91)SINDRI", R"SINDRI({"method":"floor","precision":1})SINDRI", true, R"SINDRI(2.9)SINDRI");
  filter_case(R"SINDRI(round)SINDRI", R"SINDRI(-2.91)SINDRI", R"SINDRI({"method":"floor"})SINDRI", true, R"SINDRI(-3.0)SINDRI");
  filter_case(R"SINDRI(round)SINDRI", R"SINDRI(1234.5)SINDRI", R"SINDRI({"precision":-2})SINDRI", true, R"SINDRI(1200.0)SINDRI");
  filter_case(R"SINDRI(round)SINDRI", R"SINDRI(1.005)SINDRI", R"SINDRI({"precision":2})SINDRI", true, R"SINDRI(1.0)SINDRI");
  filter_case(R"SINDRI(round)SINDRI", R"SINDRI(0.1)SINDRI", R"SINDRI({"precision":400})SINDRI", true, R"SINDRI(null)SINDRI");
  filter_case(R"SINDRI(round)SINDRI", R"SINDRI(123.456)SINDRI", R"SINDRI({"precision":-400})SINDRI", true, R"SINDRI(null)SINDRI");
  filter_case(R"SINDRI(round)SINDRI", R"SINDRI(1e300)SINDRI", R"SINDRI({"precision":10})SINDRI", true, R"SINDRI(null)SINDRI");
  filter_case(R"SINDRI(round)SINDRI", R"SINDRI(2)SINDRI", R"SINDRI({"method":"up"})SINDRI", false, R"SINDRI(Filter `round` received an incorrect value for arg `method`: got `"up"`, only common, ceil and floor are allowed)SINDRI");
  filter_case(R"SINDRI(round)SINDRI", R"SINDRI(2)SINDRI", R"SINDRI({"precision":"a"})SINDRI", false, R"SINDRI(Filter `round` received an incorrect type for arg `precision`: got `"a"` but expected a i32)SINDRI");
  filter_case(R"SINDRI(round)SINDRI", R"SINDRI(2)SINDRI", R"SINDRI({"precision":1.0})SINDRI", false, R"SINDRI(Filter `round` received an incorrect type for arg `precision`: got `1.0` but expected a i32)SINDRI");
  filter_case(R"SINDRI(round)SINDRI", R"SINDRI(2)SINDRI", R"SINDRI({"precision":3000000000})SINDRI", false, R"SINDRI(Filter `round` received an incorrect type for arg `precision`: got `3000000000` but expected a i32)SINDRI");
  filter_case(R"SINDRI(round)SINDRI", R"SINDRI("2")SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Filter `round` was called on an incorrect value: got `"2"` but expected a f64)SINDRI");
  filter_case(R"SINDRI(round)SINDRI", R"SINDRI(2)SINDRI", R"SINDRI({"method":1})SINDRI", false, R"SINDRI(Filter `round` received an incorrect type for arg `method`: got `1` but expected a String)SINDRI");
  filter_case(R"SINDRI(filesizeformat)SINDRI", R"SINDRI(0)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("0 B")SINDRI");
  filter_case(R"SINDRI(filesizeformat)SINDRI", R"SINDRI(100)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("100 B")SINDRI");
  filter_case(R"SINDRI(filesizeformat)SINDRI", R"SINDRI(1000)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("1000 B")SINDRI");
  filter_case(R"SINDRI(filesizeformat)SINDRI", R"SINDRI(1023)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("1023 B")SINDRI");
  filter_case(R"SINDRI(filesizeformat)SINDRI", R"SINDRI(1024)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("1 KB")SINDRI");
  filter_case(R"SINDRI(filesizeformat)SINDRI", R"SINDRI(1536)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("1.50 KB")SINDRI");
  filter_case(R"SINDRI(filesizeformat)SINDRI", R"SINDRI(1025)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("1.00 KB")SINDRI");
  filter_case(R"SINDRI(filesizeformat)SINDRI", R"SINDRI(123456789)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("117.74 MB")SINDRI");
  filter_case(R"SINDRI(filesizeformat)SINDRI", R"SINDRI(1048576)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("1 MB")SINDRI");
  filter_case(R"SINDRI(filesizeformat)SINDRI", R"SINDRI(1099511627776)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("1 TB")SINDRI");
  filter_case(R"SINDRI(filesizeformat)SINDRI", R"SINDRI(9223372036854775807)SINDRI", R"SINDRI({})SINDRI", true, R"SINDRI("8 EB")SINDRI");
  filter_case(R"SINDRI(filesizeformat)SINDRI", R"SINDRI(-1)SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Filter `filesizeformat` was called on an incorrect value: got `-1` but expected a usize)SINDRI");
  filter_case(R"SINDRI(filesizeformat)SINDRI", R"SINDRI(1.5)SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Filter `filesizeformat` was called on an incorrect value: got `1.5` but expected a usize)SINDRI");
  filter_case(R"SINDRI(filesizeformat)SINDRI", R"SINDRI("1")SINDRI", R"SINDRI({})SINDRI", false, R"SINDRI(Filter `filesizeformat` was called on an incorrect value: got `"1"` but expected a usize)SINDRI");
}

