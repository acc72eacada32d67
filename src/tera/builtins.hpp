#pragma once
// Tera's standard library: filters, tests and functions, looked up by name
// when a template is compiled. Each builtin declares the names of the
// arguments it accepts so that `sindri check` can reject a misspelt one
// before anything is rendered.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tera/budget.hpp"
#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::tera {

// One named argument of a call, already evaluated.
struct Arg {
  std::string_view name;
  Value value;
};

// The named arguments of one filter or function call.
class Args {
 public:
  explicit Args(std::span<const Arg> args) : args_(args) {}
  const Value* find(std::string_view name) const {
    for (const Arg& a : args_) {
      if (a.name == name) return &a.value;
    }
    return nullptr;
  }
  std::span<const Arg> all() const { return args_; }

 private:
  std::span<const Arg> args_;
};

// Every builtin charges the render's budget for the bytes and list elements
// it reads and writes, and stops with Budget::stopped() when it is spent or
// when what it builds would pass the size limit.
//
// A filter gets the value on its left and its arguments.
using FilterFn = Result<Value> (*)(const Value& input, const Args& args, Budget& budget);
// A test gets the value it is applied to (nullptr when that is an undefined
// variable) and its positional arguments.
using TestFn = Result<bool> (*)(const Value* input, std::span<const Value> args, Budget& budget);
// A function gets its arguments.
using FunctionFn = Result<Value> (*)(const Args& args, Budget& budget);

struct FilterDef {
  std::string_view name;
  std::vector<std::string_view> params;  // every argument name it accepts
  FilterFn fn;
};

struct TestDef {
  std::string_view name;
  size_t min_args;
  size_t max_args;
  TestFn fn;
};

struct FunctionDef {
  std::string_view name;
  std::vector<std::string_view> params;
  FunctionFn fn;
  // What the result depends on besides the arguments ("the clock"); empty
  // when it follows from them alone. Such functions are errors where a
  // template renders in isolation.
  std::string_view reads = {};
};

const FilterDef* find_filter(std::string_view name);
const TestDef* find_test(std::string_view name);
const FunctionDef* find_function(std::string_view name);
// Why a function that reads something besides its arguments is refused
// where a template renders in isolation.
std::string isolation_message(const FunctionDef& def);

// Appends Tera's text form of a value, as `{{ value }}` prints it: strings
// as they are, numbers as Rust prints them, null as nothing, arrays as
// `[a, b]`, objects as `[object]`. False, with the part that fitted
// appended, when the text would make `out` longer than `max_size`: an array
// holding one long array many times prints far more than it holds.
bool append_rendered(std::string& out, const Value& value, size_t max_size);

// Value's == (structural; an int never equals a float), charging `budget` a
// step per element and byte compared: two values sharing one long list many
// times may hold little and compare for long. Budget::stopped() when the
// budget is spent.
Result<bool> equal_values(const Value& a, const Value& b, Budget& budget);

// Where `needle` first occurs in `haystack` at or after `from`, or npos: in
// time linear in their sizes, which std::string_view::find is not (it
// compares the needle at every position: minutes for a few megabytes).
size_t find_text(std::string_view haystack, std::string_view needle, size_t from = 0);

// Tera's truthiness: false, null, 0, 0.0, NaN, "" and empty containers are
// false.
bool is_truthy(const Value& value);

// HTML escaping as Tera's `escape` filter and autoescape do it.
void append_html_escaped(std::string& out, std::string_view s);

}  // namespace sindri::tera
