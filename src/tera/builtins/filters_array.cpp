// Filters on arrays (Tera's builtins/filters/array.rs and filter_utils.rs).

#include <algorithm>
#include <bit>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "tera/builtins/internal.hpp"
#include "tera/builtins/unicode.hpp"
#include "value/json.hpp"
#include "value/number_format.hpp"

namespace sindri::tera::builtins {

namespace {

constexpr size_t kInsertionSortMax = 16;
// What a hash table insert (unique, group_by) costs in the render's budget:
// about as much as hashing and moving a short key and a few pointers.
constexpr uint64_t kHashInsertSteps = 8;

#define SINDRI_ARRAY_INPUT(var, filter)                                        \
  if (!input.is_array()) return incorrect_value(filter, input, "Vec<Value>"); \
  const Array& var = input.get_array()

Error attribute_error(std::string_view attribute) {
  std::string m = "attribute '";
  m.append(attribute).append("' does not reference a field");
  return Error{std::move(m)};
}

Error expected(std::string_view what, const Value& got) {
  std::string m = "expected ";
  m.append(what).append(" got ").append(display(got));
  return Error{std::move(m)};
}

// The Rust discriminant of a serde_json Value: ints and floats are both Number.
int family(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Int:
    case Value::Kind::Float:
      return 2;
    default:
      return static_cast<int>(v.kind());
  }
}

// Reading `attribute` of each element parses the path anew.
uint64_t attribute_steps(const Array& arr, std::string_view attribute) {
  return static_cast<uint64_t>(arr.size()) * (1 + attribute.size());
}

}  // namespace

Result<Value> f_first(const Value& input, const Args&, Budget&) {
  SINDRI_ARRAY_INPUT(arr, "first");
  if (arr.empty()) return Value("");
  return arr.front();
}

Result<Value> f_last(const Value& input, const Args&, Budget&) {
  SINDRI_ARRAY_INPUT(arr, "last");
  if (arr.empty()) return Value("");
  return arr.back();
}

Result<Value> f_nth(const Value& input, const Args& args, Budget&) {
  SINDRI_ARRAY_INPUT(arr, "nth");
  if (arr.empty()) return Value("");
  const Value* n = args.find("n");
  if (!n) return Error{"The `nth` filter has to have an `n` argument"};
  uint64_t idx;
  if (!as_usize(*n, idx)) return incorrect_arg("nth", "n", *n, "usize");
  if (idx >= arr.size()) return Value("");
  return arr[idx];
}

Result<Value> f_join(const Value& input, const Args& args, Budget& budget) {
  SINDRI_ARRAY_INPUT(arr, "join");
  std::string sep;
  if (const Value* s = args.find("sep")) {
    if (!s->is_string()) return incorrect_arg("truncate", "sep", *s, "String");
    if (!budget.charge(s->get_string().size())) return Budget::stopped();
    sep = unescape_pat(s->get_string());  // Tera 1.20
  }
  if (!budget.charge(arr.size())) return Budget::stopped();
  std::string out;
  bool first = true;
  for (const Value& v : arr) {
    // Each element may add all of the separator.
    if (!first) {
      if (!budget.fits(out.size() + sep.size())) return Budget::stopped();
      out.append(sep);
    }
    first = false;
    if (!append_rendered(out, v, budget.max_value_bytes())) return budget.refuse_value();
  }
  if (!budget.charge(out.size())) return Budget::stopped();
  return Value(out);
}

Result<Value> f_sort(const Value& input, const Args& args, Budget& budget) {
  SINDRI_ARRAY_INPUT(arr, "sort");
  if (arr.empty()) return input;
  SINDRI_TRY(attr, arg_string(args, "sort", "attribute", ""));
  std::string_view attribute = attr;
  if (!budget.charge(attribute_steps(arr, attribute))) return Budget::stopped();
  const Value* first = dotted_pointer(arr[0], attribute);
  if (!first) return attribute_error(attribute);

  std::vector<std::pair<const Value*, size_t>> order;  // key, index
  order.reserve(arr.size());
  Value::Kind kind = first->kind();
  switch (kind) {
    case Value::Kind::Null:
      return Error{"Null is not a sortable value"};
    case Value::Kind::Object:
      return Error{"Object is not a sortable value"};
    default:
      break;
  }
  for (size_t i = 0; i < arr.size(); ++i) {
    const Value* key = dotted_pointer(arr[i], attribute);
    if (!key) return attribute_error(attribute);
    switch (kind) {
      case Value::Kind::Bool:
        if (!key->is_bool()) return expected("bool", *key);
        break;
      case Value::Kind::Int:
      case Value::Kind::Float:
        if (!key->is_number()) return expected("number", *key);
        if (!std::isfinite(key->as_double())) {
          std::string m;
          append_float_plain(m, key->as_double());
          return Error{m + " cannot be sorted"};
        }
        break;
      case Value::Kind::String:
        if (!key->is_string()) return expected("string", *key);
        break;
      case Value::Kind::Array:
        if (!key->is_array()) return expected("array", *key);
        break;
      default:
        break;
    }
    order.emplace_back(key, i);
  }
  // Each key is compared in about log2(n) merges, and a comparison of
  // strings reads up to the shorter: equal long keys make a sort long.
  uint64_t key_bytes = order.size();
  if (kind == Value::Kind::String) {
    for (const auto& p : order) key_bytes += p.first->get_string().size();
  }
  if (!budget.charge(key_bytes * static_cast<uint64_t>(std::bit_width(order.size())))) return Budget::stopped();
  auto by = [&](auto less) {
    auto key_less = [&](const auto& a, const auto& b) { return less(*a.first, *b.first); };
    if (order.size() > kInsertionSortMax) {
      std::stable_sort(order.begin(), order.end(), key_less);
      return;
    }
    // Short lists (the usual env or port list) sort in place: stable_sort
    // would allocate a buffer for them.
    for (size_t i = 1; i < order.size(); ++i) {
      for (size_t j = i; j > 0 && key_less(order[j], order[j - 1]); --j) std::swap(order[j], order[j - 1]);
    }
  };
  switch (kind) {
    case Value::Kind::Bool:
      by([](const Value& a, const Value& b) { return a.get_bool() < b.get_bool(); });
      break;
    case Value::Kind::Int:
    case Value::Kind::Float:
      by([](const Value& a, const Value& b) { return a.as_double() < b.as_double(); });
      break;
    case Value::Kind::String:
      by([](const Value& a, const Value& b) { return a.get_string() < b.get_string(); });
      break;
    case Value::Kind::Array:
      by([](const Value& a, const Value& b) { return a.size() < b.size(); });
      break;
    default:
      break;
  }
  Array out;
  out.reserve(arr.size());
  for (const auto& p : order) out.push_back(arr[p.second]);
  return Value(std::move(out));
}

Result<Value> f_unique(const Value& input, const Args& args, Budget& budget) {
  SINDRI_ARRAY_INPUT(arr, "unique");
  if (arr.empty()) return input;
  auto cs = arg_bool(args, "unique", "case_sensitive", false);
  if (!cs) return cs.error();
  SINDRI_TRY(attr, arg_string(args, "unique", "attribute", ""));
  std::string_view attribute = attr;
  if (!budget.charge(attribute_steps(arr, attribute) + arr.size() * kHashInsertSteps)) return Budget::stopped();
  const Value* first = dotted_pointer(arr[0], attribute);
  if (!first) return attribute_error(attribute);
  switch (first->kind()) {
    case Value::Kind::Null: return Error{"Null is not a unique value"};
    case Value::Kind::Float: return Error{"Unique floats are not implemented"};
    case Value::Kind::Array: return Error{"Unique arrays are not implemented"};
    case Value::Kind::Object: return Error{"Unique objects are not implemented"};
    default: break;
  }
  const int fam = family(*first);
  const Value::Kind kind = first->kind();
  std::unordered_set<int64_t> ints;
  std::unordered_set<std::string> strings;
  bool seen_bool[2] = {false, false};
  Array out;
  for (const Value& v : arr) {
    const Value* key = dotted_pointer(v, attribute);
    if (!key) continue;
    if (family(*key) != fam) return Error{"unique filter can't compare multiple types"};
    bool fresh = false;
    switch (kind) {
      case Value::Kind::Bool: {
        bool b = key->get_bool();
        fresh = !seen_bool[b];
        seen_bool[b] = true;
        break;
      }
      case Value::Kind::Int:
        if (!key->is_int()) return expected("number", *key);
        fresh = ints.insert(key->get_int()).second;
        break;
      case Value::Kind::String: {
        if (!budget.charge(key->get_string().size())) return Budget::stopped();
        std::string k;
        if (*cs) {
          k = key->get_string();
        } else {
          unicode::append_lower(k, key->get_string());
        }
        fresh = strings.insert(std::move(k)).second;
        break;
      }
      default:
        break;
    }
    if (fresh) out.push_back(v);
  }
  return Value(std::move(out));
}

Result<Value> f_group_by(const Value& input, const Args& args, Budget& budget) {
  SINDRI_ARRAY_INPUT(arr, "group_by");
  if (arr.empty()) return Value(Object{});
  const Value* a = args.find("attribute");
  if (!a) return Error{"The `group_by` filter has to have an `attribute` argument"};
  if (!a->is_string()) return incorrect_arg("group_by", "attribute", *a, "String");
  std::string_view attribute = a->get_string();
  if (!budget.charge(attribute_steps(arr, attribute) + arr.size() * kHashInsertSteps)) return Budget::stopped();
  std::vector<std::pair<std::string, Array>> groups;
  std::unordered_map<std::string, size_t> index;
  for (const Value& v : arr) {
    const Value* key = dotted_pointer(v, attribute);
    if (!key || key->is_null()) continue;
    std::string k;
    if (key->is_string()) {
      k = key->get_string();
    } else if (!append_json_within(k, *key, budget.max_value_bytes())) {
      return budget.refuse_value();
    }
    if (!budget.charge(k.size())) return Budget::stopped();
    auto [it, inserted] = index.emplace(k, groups.size());
    if (inserted) groups.emplace_back(std::move(k), Array{});
    groups[it->second].second.push_back(v);
  }
  Object obj;
  obj.reserve(groups.size());
  for (auto& g : groups) obj.push_back(Member{Value(g.first), Value(std::move(g.second))});
  return Value(std::move(obj));
}

Result<Value> f_filter(const Value& input, const Args& args, Budget& budget) {
  SINDRI_ARRAY_INPUT(arr, "filter");
  if (arr.empty()) return input;
  const Value* a = args.find("attribute");
  if (!a) return Error{"The `filter` filter has to have an `attribute` argument"};
  if (!a->is_string()) return incorrect_arg("filter", "attribute", *a, "String");
  std::string_view attribute = a->get_string();
  if (!budget.charge(attribute_steps(arr, attribute))) return Budget::stopped();
  static const Value kNull;
  const Value* want = args.find("value");
  if (!want) want = &kNull;
  Array out;
  for (const Value& v : arr) {
    const Value* val = dotted_pointer(v, attribute);
    if (!val) val = &kNull;
    bool keep = !val->is_null();
    if (!want->is_null()) {
      Result<bool> same = equal_values(*val, *want, budget);
      if (!same) return same.error();
      keep = *same;
    }
    if (keep) out.push_back(v);
  }
  if (out.size() == arr.size()) return input;
  return Value(std::move(out));
}

Result<Value> f_map(const Value& input, const Args& args, Budget& budget) {
  SINDRI_ARRAY_INPUT(arr, "map");
  if (arr.empty()) return input;
  const Value* a = args.find("attribute");
  if (!a) return Error{"The `map` filter has to have an `attribute` argument"};
  if (!a->is_string()) return incorrect_arg("map", "attribute", *a, "String");
  std::string_view attribute = a->get_string();
  if (!budget.charge(attribute_steps(arr, attribute))) return Budget::stopped();
  Array out;
  out.reserve(arr.size());
  for (const Value& v : arr) {
    const Value* val = dotted_pointer(v, attribute);
    if (val && !val->is_null()) out.push_back(*val);
  }
  return Value(std::move(out));
}

namespace {

// Rust's `f as usize`: truncation, saturating, NaN -> 0.
size_t f64_to_usize(double f) {
  if (!(f > 0)) return 0;
  if (f >= 18446744073709551615.0) return SIZE_MAX;
  return static_cast<size_t>(f);
}

size_t slice_index(double i, size_t len) {
  if (i >= 0.0) return f64_to_usize(i);
  return f64_to_usize(static_cast<double>(len) + i);
}

}  // namespace

Result<Value> f_slice(const Value& input, const Args& args, Budget& budget) {
  SINDRI_ARRAY_INPUT(arr, "slice");
  if (arr.empty()) return input;
  size_t start = 0;
  if (const Value* s = args.find("start")) {
    double f;
    if (!as_f64(*s, f)) return incorrect_arg("slice", "start", *s, "f64");
    start = slice_index(f, arr.size());
  }
  size_t end = arr.size();
  if (const Value* e = args.find("end")) {
    double f;
    if (!as_f64(*e, f)) return incorrect_arg("slice", "end", *e, "f64");
    end = slice_index(f, arr.size());
  }
  if (end > arr.size()) end = arr.size();
  if (start >= end) return Value(Array{});
  if (start == 0 && end == arr.size()) return input;
  if (!budget.charge(end - start)) return Budget::stopped();
  return Value(Array(arr.begin() + static_cast<ptrdiff_t>(start), arr.begin() + static_cast<ptrdiff_t>(end)));
}

Result<Value> f_concat(const Value& input, const Args& args, Budget& budget) {
  SINDRI_ARRAY_INPUT(arr, "concat");
  const Value* with = args.find("with");
  if (!with) return Error{"The `concat` filter has to have a `with` argument"};
  const uint64_t size = arr.size() + (with->is_array() ? with->size() : 1);
  if (!budget.fits_list(size) || !budget.charge(size)) return Budget::stopped();
  Array out;
  if (with->is_array()) {
    out.reserve(arr.size() + with->size());
    out = arr;
    for (const Value& v : with->get_array()) out.push_back(v);
  } else {
    out.reserve(arr.size() + 1);
    out = arr;
    out.push_back(*with);
  }
  return Value(std::move(out));
}

}  // namespace sindri::tera::builtins
