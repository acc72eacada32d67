// Name lookup over the tables of builtin filters, tests and functions.

#include <algorithm>

#include "tera/builtins/internal.hpp"

namespace sindri::tera {

namespace {

using namespace builtins;

template <class Def>
std::vector<Def> sorted(std::vector<Def> defs) {
  std::sort(defs.begin(), defs.end(), [](const Def& a, const Def& b) { return a.name < b.name; });
  return defs;
}

template <class Def>
const Def* lookup(const std::vector<Def>& defs, std::string_view name) {
  auto it = std::lower_bound(defs.begin(), defs.end(), name,
                             [](const Def& d, std::string_view n) { return d.name < n; });
  return it != defs.end() && it->name == name ? &*it : nullptr;
}

const std::vector<FilterDef>& filters() {
  static const std::vector<FilterDef> defs = sorted<FilterDef>({
      // string.rs
      {"upper", {}, f_upper},
      {"lower", {}, f_lower},
      {"trim", {}, f_trim},
      {"trim_start", {}, f_trim_start},
      {"trim_end", {}, f_trim_end},
      {"trim_start_matches", {"pat"}, f_trim_start_matches},
      {"trim_end_matches", {"pat"}, f_trim_end_matches},
      {"truncate", {"length", "end"}, f_truncate},
      {"wordcount", {}, f_wordcount},
      {"replace", {"from", "to"}, f_replace},
      {"capitalize", {}, f_capitalize},
      {"title", {}, f_title},
      {"linebreaksbr", {}, f_linebreaksbr},
      {"indent", {"prefix", "first", "blank"}, f_indent},
      {"striptags", {}, f_striptags},
      {"spaceless", {}, f_spaceless},
      {"urlencode", {}, f_urlencode},
      {"urlencode_strict", {}, f_urlencode_strict},
      {"escape", {}, f_escape},
      {"escape_xml", {}, f_escape_xml},
      {"slugify", {}, f_slugify},
      {"addslashes", {}, f_addslashes},
      {"split", {"pat"}, f_split},
      {"int", {"default", "base"}, f_int},
      {"float", {"default"}, f_float},
      // handled by the renderer, registered for lookups
      {"safe", {}, f_safe},
      {"default", {"value"}, f_default},
      // array.rs
      {"first", {}, f_first},
      {"last", {}, f_last},
      {"nth", {"n"}, f_nth},
      {"join", {"sep"}, f_join},
      {"sort", {"attribute"}, f_sort},
      {"unique", {"attribute", "case_sensitive"}, f_unique},
      {"slice", {"start", "end"}, f_slice},
      {"group_by", {"attribute"}, f_group_by},
      {"filter", {"attribute", "value"}, f_filter},
      {"map", {"attribute"}, f_map},
      {"concat", {"with"}, f_concat},
      // number.rs
      {"abs", {}, f_abs},
      {"pluralize", {"singular", "plural"}, f_pluralize},
      {"round", {"method", "precision"}, f_round},
      {"filesizeformat", {"binary"}, f_filesizeformat},
      // common.rs
      {"length", {}, f_length},
      {"reverse", {}, f_reverse},
      {"date", {"format", "timezone"}, f_date},
      {"json_encode", {"pretty"}, f_json_encode},
      {"as_str", {}, f_as_str},
      // object.rs
      {"get", {"key", "default"}, f_get},
  });
  return defs;
}

// Tera checks argument counts inside each test, with its own messages, so
// the bounds here only say how many a test can use.
const std::vector<TestDef>& tests() {
  static const std::vector<TestDef> defs = sorted<TestDef>({
      {"defined", 0, 0, t_defined},
      {"undefined", 0, 0, t_undefined},
      {"odd", 0, 0, t_odd},
      {"even", 0, 0, t_even},
      {"string", 0, 0, t_string},
      {"number", 0, 0, t_number},
      {"divisibleby", 0, 1, t_divisibleby},
      {"iterable", 0, 0, t_iterable},
      {"object", 0, 0, t_object},
      {"starting_with", 0, 1, t_starting_with},
      {"ending_with", 0, 1, t_ending_with},
      {"containing", 0, 1, t_containing},
      {"matching", 0, 1, t_matching},
  });
  return defs;
}

const std::vector<FunctionDef>& functions() {
  static const std::vector<FunctionDef> defs = sorted<FunctionDef>({
      {"range", {"start", "end", "step_by"}, fn_range},
      {"now", {"timestamp", "utc"}, fn_now},
      {"throw", {"message"}, fn_throw},
      {"get_random", {"start", "end"}, fn_get_random},
      {"get_env", {"name", "default"}, fn_get_env},
  });
  return defs;
}

}  // namespace

const FilterDef* find_filter(std::string_view name) { return lookup(filters(), name); }
const TestDef* find_test(std::string_view name) { return lookup(tests(), name); }
const FunctionDef* find_function(std::string_view name) { return lookup(functions(), name); }

}  // namespace sindri::tera
