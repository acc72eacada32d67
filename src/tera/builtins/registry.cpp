// Name lookup over the tables of builtin filters, tests and functions.

#include <array>
#include <vector>

#include "tera/builtins/internal.hpp"

namespace sindri::tera {

namespace {

// The builtins of one kind by name. A name's length and first and last
// bytes pick a bucket of one or two entries: cheaper than a binary search
// of string comparisons, and the parser asks for every filter it meets.
template <class Def>
class NameIndex {
 public:
  explicit NameIndex(std::vector<Def> defs) : defs_(std::move(defs)) {
    for (const Def& d : defs_) buckets_[bucket(d.name)].push_back(&d);
  }
  const Def* find(std::string_view name) const {
    for (const Def* d : buckets_[bucket(name)]) {
      if (d->name == name) return d;
    }
    return nullptr;
  }

 private:
  static constexpr size_t kBuckets = 128;
  static size_t bucket(std::string_view name) {
    if (name.empty()) return 0;
    return (name.size() * 7 + static_cast<unsigned char>(name.front()) * 3 + static_cast<unsigned char>(name.back())) %
           kBuckets;
  }

  std::vector<Def> defs_;
  std::array<std::vector<const Def*>, kBuckets> buckets_;
};

const NameIndex<FilterDef>& filters() {
  using namespace builtins;  // here, not for the file: the unity build joins files
  static const NameIndex<FilterDef> defs({
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
const NameIndex<TestDef>& tests() {
  using namespace builtins;  // here, not for the file: the unity build joins files
  static const NameIndex<TestDef> defs({
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

const NameIndex<FunctionDef>& functions() {
  using namespace builtins;  // here, not for the file: the unity build joins files
  static const NameIndex<FunctionDef> defs({
      {"range", {"start", "end", "step_by"}, fn_range},
      {"now", {"timestamp", "utc"}, fn_now, "the clock"},
      {"throw", {"message"}, fn_throw},
      {"get_random", {"start", "end"}, fn_get_random, "a random source"},
      {"get_env", {"name", "default"}, fn_get_env, "the process's environment"},
  });
  return defs;
}

}  // namespace

const FilterDef* find_filter(std::string_view name) { return filters().find(name); }
const TestDef* find_test(std::string_view name) { return tests().find(name); }
const FunctionDef* find_function(std::string_view name) { return functions().find(name); }

std::string isolation_message(const FunctionDef& def) {
  return "function `" + std::string(def.name) + "` reads " + std::string(def.reads) +
         ": not available here, where the output must follow from the template and its data alone";
}

}  // namespace sindri::tera
