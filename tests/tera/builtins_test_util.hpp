#pragma once
// Helpers of the builtins' tests: call a filter, test or function by name
// with JSON-written input and arguments and compare with what Tera produced.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tera/builtins.hpp"
#include "tera/tera.hpp"
#include "value/json.hpp"

namespace sindri::tera::testing {

// A new budget of a render with the default options, for calling a builtin
// directly; valid until the next call.
inline Budget& fresh_budget() {
  static const RenderOptions options;
  thread_local Budget budget(options);
  budget = Budget(options);
  return budget;
}

inline Value json(std::string_view text) {
  auto v = parse_json(text);
  EXPECT_TRUE(v.ok()) << text;
  return v.ok() ? *v : Value();
}

inline std::vector<Arg> named_args(const Value& obj) {
  std::vector<Arg> out;
  for (const Member& m : obj.get_object()) out.push_back(Arg{m.key.get_string(), m.value});
  return out;
}

// expected: the JSON of the result when ok, else the error message.
inline void filter_case(std::string_view name, const char* input, std::string_view args, bool ok,
                        std::string_view expected) {
  SCOPED_TRACE(std::string(name) + " on " + input + " with " + std::string(args));
  const FilterDef* def = find_filter(name);
  ASSERT_NE(def, nullptr);
  Value in = json(input);
  Value a = json(args);  // keys must outlive the Args
  std::vector<Arg> list = named_args(a);
  for (const Arg& arg : list) {
    bool known = false;
    for (auto p : def->params) known |= p == arg.name;
    EXPECT_TRUE(known) << "param " << arg.name << " not declared";
  }
  Result<Value> r = def->fn(in, Args(list), fresh_budget());
  if (ok) {
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(to_json(*r), expected);
  } else {
    ASSERT_FALSE(r.ok()) << to_json(*r);
    EXPECT_EQ(r.error().message, expected);
  }
}

inline void test_case(std::string_view name, const char* input, std::string_view args, bool ok,
                      std::string_view expected) {
  SCOPED_TRACE(std::string(name) + " on " + (input ? input : "undefined") + " with " + std::string(args));
  const TestDef* def = find_test(name);
  ASSERT_NE(def, nullptr);
  Value in = input ? json(input) : Value();
  Value a = json(args);
  Result<bool> r = def->fn(input ? &in : nullptr, std::span<const Value>(a.get_array()), fresh_budget());
  if (ok) {
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(*r ? "true" : "false", expected);
  } else {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, expected);
  }
}

inline void function_case(std::string_view name, const char* /*input*/, std::string_view args, bool ok,
                          std::string_view expected) {
  SCOPED_TRACE(std::string(name) + " with " + std::string(args));
  const FunctionDef* def = find_function(name);
  ASSERT_NE(def, nullptr);
  Value a = json(args);
  std::vector<Arg> list = named_args(a);
  Result<Value> r = def->fn(Args(list), fresh_budget());
  if (ok) {
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(to_json(*r), expected);
  } else {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, expected);
  }
}

}  // namespace sindri::tera::testing

using sindri::tera::testing::filter_case;
using sindri::tera::testing::function_case;
using sindri::tera::testing::test_case;
