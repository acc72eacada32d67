// Generated from Tera 1.17 reference renderer outputs (tests/tera/builtins_cases/*.tsv).
// Each line: kind, name, input JSON, arguments JSON -> expected JSON output or error message.
#include "builtins_test_util.hpp"

TEST(BuiltinsReference_functions, Reference0) {
  function_case(R"SINDRI(range)SINDRI", nullptr, R"SINDRI({"end":5})SINDRI", true, R"SINDRI([0,1,2,3,4])SINDRI");
  function_case(R"SINDRI(range)SINDRI", nullptr, R"SINDRI({"start":2,"end":5})SINDRI", true, R"SINDRI([2,3,4])SINDRI");
  function_case(R"SINDRI(range)SINDRI", nullptr, R"SINDRI({"start":0,"end":10,"step_by":3})SINDRI", true, R"SINDRI([0,3,6,9])SINDRI");
  function_case(R"SINDRI(range)SINDRI", nullptr, R"SINDRI({"start":5,"end":5})SINDRI", true, R"SINDRI([])SINDRI");
  function_case(R"SINDRI(range)SINDRI", nullptr, R"SINDRI({"start":6,"end":5})SINDRI", false, R"SINDRI(Function `range` was called with a `start` argument greater than the `end` one)SINDRI");
  function_case(R"SINDRI(range)SINDRI", nullptr, R"SINDRI({})SINDRI", false, R"SINDRI(Function `range` was called without a `end` argument)SINDRI");
  function_case(R"SINDRI(range)SINDRI", nullptr, R"SINDRI({"end":-1})SINDRI", false, R"SINDRI(Function `range` received end=-1 but `end` can only be a number)SINDRI");
  function_case(R"SINDRI(range)SINDRI", nullptr, R"SINDRI({"end":1.5})SINDRI", false, R"SINDRI(Function `range` received end=1.5 but `end` can only be a number)SINDRI");
  function_case(R"SINDRI(range)SINDRI", nullptr, R"SINDRI({"end":"5"})SINDRI", false, R"SINDRI(Function `range` received end="5" but `end` can only be a number)SINDRI");
  function_case(R"SINDRI(range)SINDRI", nullptr, R"SINDRI({"start":"a","end":5})SINDRI", false, R"SINDRI(Function `range` received start="a" but `start` can only be a number)SINDRI");
  function_case(R"SINDRI(range)SINDRI", nullptr, R"SINDRI({"end":5,"step_by":-1})SINDRI", false, R"SINDRI(Function `range` received step_by=-1 but `step` can only be a number)SINDRI");
  function_case(R"SINDRI(throw)SINDRI", nullptr, R"SINDRI({"message":"boom"})SINDRI", false, R"SINDRI(boom)SINDRI");
  function_case(R"SINDRI(throw)SINDRI", nullptr, R"SINDRI({})SINDRI", false, R"SINDRI(Function `throw` was called without a `message` argument)SINDRI");
  function_case(R"SINDRI(throw)SINDRI", nullptr, R"SINDRI({"message":1})SINDRI", false, R"SINDRI(Function `throw` received message=1 but `message` can only be a string)SINDRI");
  function_case(R"SINDRI(get_random)SINDRI", nullptr, R"SINDRI({})SINDRI", false, R"SINDRI(Function `get_random` didn't receive an `end` argument)SINDRI");
  function_case(R"SINDRI(get_random)SINDRI", nullptr, R"SINDRI({"end":"a"})SINDRI", false, R"SINDRI(Function `get_random` received end="a" but `end` can only be a number)SINDRI");
  function_case(R"SINDRI(get_random)SINDRI", nullptr, R"SINDRI({"start":1.5,"end":3})SINDRI", false, R"SINDRI(Function `get_random` received start=1.5 but `start` can only be a number)SINDRI");
  function_case(R"SINDRI(get_random)SINDRI", nullptr, R"SINDRI({"start":0,"end":1})SINDRI", true, R"SINDRI(0)SINDRI");
  function_case(R"SINDRI(get_random)SINDRI", nullptr, R"SINDRI({"start":-3,"end":-2})SINDRI", true, R"SINDRI(-3)SINDRI");
  function_case(R"SINDRI(get_env)SINDRI", nullptr, R"SINDRI({"name":"SINDRI_SURELY_UNSET_VAR"})SINDRI", false, R"SINDRI(Environment variable `SINDRI_SURELY_UNSET_VAR` not found)SINDRI");
  function_case(R"SINDRI(get_env)SINDRI", nullptr, R"SINDRI({"name":"SINDRI_SURELY_UNSET_VAR","default":"d"})SINDRI", true, R"SINDRI("d")SINDRI");
  function_case(R"SINDRI(get_env)SINDRI", nullptr, R"SINDRI({"name":"SINDRI_SURELY_UNSET_VAR","default":[1]})SINDRI", true, R"SINDRI([1])SINDRI");
  function_case(R"SINDRI(get_env)SINDRI", nullptr, R"SINDRI({})SINDRI", false, R"SINDRI(Function `get_env` didn't receive a `name` argument)SINDRI");
  function_case(R"SINDRI(get_env)SINDRI", nullptr, R"SINDRI({"name":1})SINDRI", false, R"SINDRI(Function `get_env` received name=1 but `name` can only be a string)SINDRI");
  function_case(R"SINDRI(now)SINDRI", nullptr, R"SINDRI({"utc":1})SINDRI", false, R"SINDRI(Function `now` received utc=1 but `utc` can only be a boolean)SINDRI");
  function_case(R"SINDRI(now)SINDRI", nullptr, R"SINDRI({"timestamp":"x"})SINDRI", false, R"SINDRI(Function `now` received timestamp="x" but `timestamp` can only be a boolean)SINDRI");
}

