// Tests (Tera's builtins/testers.rs).

#include <cmath>

#include "tera/builtins/internal.hpp"
#include "tera/builtins/regex.hpp"

namespace sindri::tera::builtins {

namespace {

Status args_allowed(std::string_view name, size_t max, size_t len) {
  if (max == 0 && len > 0) {
    std::string m = "Tester `";
    m.append(name).append("` was called with some args but this test doesn't take args");
    return Error{std::move(m)};
  }
  if (len > max) {
    std::string m = "Tester `";
    m.append(name).append("` was called with ").append(std::to_string(len));
    m.append(" args, the max number is ").append(std::to_string(max));
    return Error{std::move(m)};
  }
  return Ok{};
}

Status defined(std::string_view name, const Value* v) {
  if (v) return Ok{};
  std::string m = "Tester `";
  m.append(name).append("` was called on an undefined variable");
  return Error{std::move(m)};
}

Result<std::string_view> string_of(std::string_view name, std::string_view part, const Value* v) {
  if (v && v->is_string()) return v->get_string();
  std::string m = "Tester `";
  m.append(name).append("` was called ").append(part).append(" that isn't a string");
  return Error{std::move(m)};
}

}  // namespace

Result<bool> t_defined(const Value* input, std::span<const Value> args, Budget&) {
  SINDRI_CHECK(args_allowed("defined", 0, args.size()));
  return input != nullptr;
}

Result<bool> t_undefined(const Value* input, std::span<const Value> args, Budget&) {
  SINDRI_CHECK(args_allowed("undefined", 0, args.size()));
  return input == nullptr;
}

Result<bool> t_string(const Value* input, std::span<const Value> args, Budget&) {
  SINDRI_CHECK(args_allowed("string", 0, args.size()));
  SINDRI_CHECK(defined("string", input));
  return input->is_string();
}

Result<bool> t_number(const Value* input, std::span<const Value> args, Budget&) {
  SINDRI_CHECK(args_allowed("number", 0, args.size()));
  SINDRI_CHECK(defined("number", input));
  return input->is_number();
}

Result<bool> t_odd(const Value* input, std::span<const Value> args, Budget&) {
  SINDRI_CHECK(args_allowed("odd", 0, args.size()));
  SINDRI_CHECK(defined("odd", input));
  if (!input->is_number()) return Error{"Tester `odd` was called on a variable that isn't a number"};
  return std::fmod(input->as_double(), 2.0) != 0.0;
}

Result<bool> t_even(const Value* input, std::span<const Value> args, Budget& budget) {
  SINDRI_CHECK(args_allowed("even", 0, args.size()));
  SINDRI_CHECK(defined("even", input));
  auto odd = t_odd(input, args, budget);
  if (!odd) return odd.error();
  return !*odd;
}

Result<bool> t_divisibleby(const Value* input, std::span<const Value> args, Budget&) {
  SINDRI_CHECK(args_allowed("divisibleby", 1, args.size()));
  SINDRI_CHECK(defined("divisibleby", input));
  if (!input->is_number()) return Error{"Tester `divisibleby` was called on a variable that isn't a number"};
  if (args.empty() || !args[0].is_number()) {
    return Error{"Tester `divisibleby` was called with a parameter that isn't a number"};
  }
  return std::fmod(input->as_double(), args[0].as_double()) == 0.0;
}

Result<bool> t_iterable(const Value* input, std::span<const Value> args, Budget&) {
  SINDRI_CHECK(args_allowed("iterable", 0, args.size()));
  SINDRI_CHECK(defined("iterable", input));
  return input->is_array() || input->is_object();
}

Result<bool> t_object(const Value* input, std::span<const Value> args, Budget&) {
  SINDRI_CHECK(args_allowed("object", 0, args.size()));
  SINDRI_CHECK(defined("object", input));
  return input->is_object();
}

Result<bool> t_starting_with(const Value* input, std::span<const Value> args, Budget& budget) {
  SINDRI_CHECK(args_allowed("starting_with", 1, args.size()));
  SINDRI_CHECK(defined("starting_with", input));
  SINDRI_TRY(s, string_of("starting_with", "on a variable", input));
  SINDRI_TRY(needle, string_of("starting_with", "with a parameter", args.empty() ? nullptr : &args[0]));
  if (!budget.charge(needle.size())) return Budget::stopped();
  return s.substr(0, needle.size()) == needle;
}

Result<bool> t_ending_with(const Value* input, std::span<const Value> args, Budget& budget) {
  SINDRI_CHECK(args_allowed("ending_with", 1, args.size()));
  SINDRI_CHECK(defined("ending_with", input));
  SINDRI_TRY(s, string_of("ending_with", "on a variable", input));
  SINDRI_TRY(needle, string_of("ending_with", "with a parameter", args.empty() ? nullptr : &args[0]));
  if (!budget.charge(needle.size())) return Budget::stopped();
  return s.size() >= needle.size() && s.substr(s.size() - needle.size()) == needle;
}

Result<bool> t_containing(const Value* input, std::span<const Value> args, Budget& budget) {
  SINDRI_CHECK(args_allowed("containing", 1, args.size()));
  SINDRI_CHECK(defined("containing", input));
  const Value* param = args.empty() ? nullptr : &args[0];
  switch (input->kind()) {
    case Value::Kind::String: {
      SINDRI_TRY(needle, string_of("containing", "with a parameter", param));
      if (!budget.charge(input->get_string().size() + needle.size())) return Budget::stopped();
      return find_text(input->get_string(), needle) != std::string_view::npos;
    }
    case Value::Kind::Array: {
      // Tera panics here; an error is kinder.
      if (!param) return Error{"Tester `containing` was called without a parameter"};
      if (!budget.charge(input->size())) return Budget::stopped();
      for (const Value& v : input->get_array()) {
        Result<bool> same = equal_values(v, *param, budget);
        if (!same || *same) return same;
      }
      return false;
    }
    case Value::Kind::Object: {
      SINDRI_TRY(needle, string_of("containing", "with a parameter", param));
      if (!budget.charge(needle.size())) return Budget::stopped();
      return input->find(needle) != nullptr;
    }
    default:
      return Error{"Tester `containing` can only be used on string, array or map"};
  }
}

Result<bool> t_matching(const Value* input, std::span<const Value> args, Budget& budget) {
  SINDRI_CHECK(args_allowed("matching", 1, args.size()));
  SINDRI_CHECK(defined("matching", input));
  SINDRI_TRY(s, string_of("matching", "on a variable", input));
  SINDRI_TRY(pattern, string_of("matching", "with a parameter", args.empty() ? nullptr : &args[0]));
  if (!budget.charge(s.size() + pattern.size())) return Budget::stopped();
  auto m = regex::is_match(pattern, s, budget);
  if (!m) return Error{"Tester `matching`: Invalid regular expression: " + m.error().message};
  return *m;
}

}  // namespace sindri::tera::builtins
