#pragma once
// Shared helpers of the builtins: argument extraction with Tera's error
// wording, value formatting as serde_json's Display and Debug print values,
// and the declarations of every builtin function (registered in registry.cpp).

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tera/builtins.hpp"
#include "tera/unicode_space.hpp"

namespace sindri::tera::builtins {

// serde_json's `Display` of a Value (compact JSON), as Tera's messages print it.
std::string display(const Value& v);
// serde_json's `Debug` of a Value: `String("a")`, `Array [Number(1)]`, ...
std::string debug(const Value& v);
// Rust's `{:?}` of a str: quoted, with Rust's escapes.
void append_rust_debug_str(std::string& out, std::string_view s);

// A float result as serde_json's to_value makes it: NaN and infinities become null.
inline Value float_value(double d) { return std::isfinite(d) ? Value(d) : Value(); }

// "Filter `NAME` was called on an incorrect value: got `V` but expected a TY"
Error incorrect_value(std::string_view filter, const Value& v, std::string_view ty);
// "Filter `NAME` received an incorrect type for arg `ARG`: got `V` but expected a TY"
Error incorrect_arg(std::string_view filter, std::string_view arg, const Value& v, std::string_view ty);
// "Filter `NAME` expected an arg called `ARG`"
Error missing_arg(std::string_view filter, std::string_view arg);

// serde's from_value conversions Tera relies on.
inline bool as_usize(const Value& v, uint64_t& out) {
  if (!v.is_int() || v.get_int() < 0) return false;
  out = static_cast<uint64_t>(v.get_int());
  return true;
}
inline bool as_f64(const Value& v, double& out) {
  if (!v.is_number()) return false;
  out = v.as_double();
  return true;
}

// Typed optional arguments of filter `filter`; an argument of the wrong type
// is an error with Tera's wording, an absent one yields `def`.
Result<std::string_view> arg_string(const Args& args, std::string_view filter, std::string_view name,
                                    std::string_view def);
Result<std::optional<std::string_view>> arg_string_opt(const Args& args, std::string_view filter,
                                                       std::string_view name);
Result<bool> arg_bool(const Args& args, std::string_view filter, std::string_view name, bool def);
Result<uint64_t> arg_usize(const Args& args, std::string_view filter, std::string_view name, uint64_t def);
Result<int64_t> arg_i64(const Args& args, std::string_view filter, std::string_view name, int64_t def);

// Tera's `pat` unescaping: `\n` and `\t` written in a template become real ones.
std::string unescape_pat(std::string_view p);

// Dotted path lookup (Tera 1.18+ `dotted_pointer`): `a.b.0`, `a["b.c"]`, `a['x']`.
const Value* dotted_pointer(const Value& root, std::string_view path);

// UTF-8 helpers.
// Decodes one code point at s[i], advancing i. Invalid bytes decode as U+FFFD.
char32_t next_cp(std::string_view s, size_t& i);
void append_utf8(std::string& out, char32_t c);
size_t count_chars(std::string_view s);

// ---- filters ----
#define SINDRI_FILTER(name) Result<Value> name(const Value& input, const Args& args, Budget& budget)
SINDRI_FILTER(f_upper);
SINDRI_FILTER(f_lower);
SINDRI_FILTER(f_trim);
SINDRI_FILTER(f_trim_start);
SINDRI_FILTER(f_trim_end);
SINDRI_FILTER(f_trim_start_matches);
SINDRI_FILTER(f_trim_end_matches);
SINDRI_FILTER(f_truncate);
SINDRI_FILTER(f_wordcount);
SINDRI_FILTER(f_replace);
SINDRI_FILTER(f_capitalize);
SINDRI_FILTER(f_title);
SINDRI_FILTER(f_linebreaksbr);
SINDRI_FILTER(f_indent);
SINDRI_FILTER(f_striptags);
SINDRI_FILTER(f_spaceless);
SINDRI_FILTER(f_urlencode);
SINDRI_FILTER(f_urlencode_strict);
SINDRI_FILTER(f_escape);
SINDRI_FILTER(f_escape_xml);
SINDRI_FILTER(f_slugify);
SINDRI_FILTER(f_addslashes);
SINDRI_FILTER(f_split);
SINDRI_FILTER(f_int);
SINDRI_FILTER(f_float);
SINDRI_FILTER(f_safe);
SINDRI_FILTER(f_default);

SINDRI_FILTER(f_first);
SINDRI_FILTER(f_last);
SINDRI_FILTER(f_nth);
SINDRI_FILTER(f_join);
SINDRI_FILTER(f_sort);
SINDRI_FILTER(f_unique);
SINDRI_FILTER(f_slice);
SINDRI_FILTER(f_group_by);
SINDRI_FILTER(f_filter);
SINDRI_FILTER(f_map);
SINDRI_FILTER(f_concat);

SINDRI_FILTER(f_abs);
SINDRI_FILTER(f_pluralize);
SINDRI_FILTER(f_round);
SINDRI_FILTER(f_filesizeformat);

SINDRI_FILTER(f_length);
SINDRI_FILTER(f_reverse);
SINDRI_FILTER(f_date);
SINDRI_FILTER(f_json_encode);
SINDRI_FILTER(f_as_str);

SINDRI_FILTER(f_get);
#undef SINDRI_FILTER

// ---- tests ----
#define SINDRI_TEST(name) Result<bool> name(const Value* input, std::span<const Value> args, Budget& budget)
SINDRI_TEST(t_defined);
SINDRI_TEST(t_undefined);
SINDRI_TEST(t_odd);
SINDRI_TEST(t_even);
SINDRI_TEST(t_string);
SINDRI_TEST(t_number);
SINDRI_TEST(t_divisibleby);
SINDRI_TEST(t_iterable);
SINDRI_TEST(t_object);
SINDRI_TEST(t_starting_with);
SINDRI_TEST(t_ending_with);
SINDRI_TEST(t_containing);
SINDRI_TEST(t_matching);
#undef SINDRI_TEST

// ---- functions ----
Result<Value> fn_range(const Args& args, Budget& budget);
Result<Value> fn_now(const Args& args, Budget& budget);
Result<Value> fn_throw(const Args& args, Budget& budget);
Result<Value> fn_get_random(const Args& args, Budget& budget);
Result<Value> fn_get_env(const Args& args, Budget& budget);

}  // namespace sindri::tera::builtins
