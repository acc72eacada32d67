// Strategic merge patch, following k8s.io/apimachinery/pkg/util/strategicpatch
// (patch.go: mergeMap, mergeSlice, mergePatchIntoOriginal, normalizeElementOrder)
// with the options kubectl and the API server use to apply a patch
// (MergeParallelList and IgnoreUnmatchedNulls on). Where Go's behaviour is
// surprising it is kept, because kubectl's result is the reference:
//  - a new list element is appended as written (nulls and directives kept),
//    while a new map key has its nulls and `$patch` maps stripped;
//  - merged lists put patch items (in patch or $setElementOrder order) first
//    and slot the original-only items in by their original order;
//  - numbers compare as Go compares int64 and float64: 80 != 80.0.

#include <algorithm>
#include <climits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "value/pointer.hpp"
#include "patch/patch.hpp"
#include "patch/patch_meta.hpp"
#include "value/json.hpp"

namespace sindri::patch {

namespace {

constexpr std::string_view kDirective = "$patch";
constexpr std::string_view kRetainKeys = "$retainKeys";
constexpr std::string_view kSetElementOrder = "$setElementOrder/";
constexpr std::string_view kDeleteFromPrimitiveList = "$deleteFromPrimitiveList/";

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

bool is_string(const Value* v, std::string_view s) {
  return v && v->is_string() && v->get_string() == s;
}

const Array& items(const Value& list) {
  static const Array empty;
  return list.is_array() ? list.get_array() : empty;
}

// A new value taken from the patch: without `$patch` maps and, when asked,
// without null members (Go: discardNullValuesFromPatch, removeDirectives).
// nullopt when the value itself is a `$patch` map.
std::optional<Value> strip_directives(const Value& v, bool drop_nulls) {
  if (v.is_object()) {
    Object out;
    out.reserve(v.size());
    bool has_directive = false;
    for (const Member& m : v.get_object()) {
      if (drop_nulls && m.value.is_null()) continue;
      if (m.key.get_string() == kDirective) has_directive = true;
      if (auto kept = strip_directives(m.value, drop_nulls)) out.push_back({m.key, std::move(*kept)});
    }
    if (has_directive) return std::nullopt;
    return Value(std::move(out));
  }
  if (v.is_array()) {
    Array out;
    out.reserve(v.size());
    for (const Value& item : v.get_array()) {
      if (auto kept = strip_directives(item, drop_nulls)) out.push_back(std::move(*kept));
    }
    return Value(std::move(out));
  }
  return v;
}

// A value as Go's fmt prints the decoded JSON (map[a:1 b:[x y]]), so that
// errors read as kubectl's do.
std::string go_format(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Null:
      return "<nil>";
    case Value::Kind::String:
      return std::string(v.get_string());
    case Value::Kind::Array: {
      std::string out = "[";
      for (const Value& item : v.get_array()) {
        if (out.size() > 1) out += ' ';
        out += go_format(item);
      }
      return out + "]";
    }
    case Value::Kind::Object: {
      std::string out = "map[";
      for (const Member& m : v.get_object()) {
        if (out.size() > 4) out += ' ';
        out += std::string(m.key.get_string()) + ":" + go_format(m.value);
      }
      return out + "]";
    }
    default:
      return to_json(v);
  }
}

class Merger {
 public:
  PatchResult<Value> merge_map(const Value& original, const Value& patch, std::string_view type);

 private:
  PatchError error(std::string message) const { return PatchError{std::move(message), path_, {}}; }
  PatchError no_merge_key(const Value& item, std::string_view key) const {
    return error("map: " + go_format(item) + " does not contain declared merge key: " + std::string(key));
  }

  std::optional<PatchError> apply_retain_keys(Value& out, const Value& patch);
  std::optional<PatchError> apply_element_order(Value& out, const Value& patch, std::string_view type,
                                                std::vector<std::string_view>& consumed);
  PatchResult<Value> merge_slice_handler(const Value& original, const Value& patch, const FieldMeta& meta,
                                         bool is_delete_list);
  PatchResult<Value> merge_slice(const Value& original, const Value& patch, const FieldMeta& meta,
                                 bool is_delete_list);
  PatchResult<Value::Kind> element_kind(const Array& a, const Array& b) const;
  std::optional<PatchError> validate_order(const Array& patch_list, const Array& order,
                                           std::string_view key) const;
  PatchResult<Array> normalize(Array patch_items, Array server_only, const Array& patch_order,
                               const Array& server_order, std::string_view key, Value::Kind kind) const;
  PatchResult<Array> sort_by(Array to_sort, const Array& order, std::string_view key,
                             Value::Kind kind) const;
  std::optional<PatchError> partition(const Array& merged, const Array& by, std::string_view key,
                                      Array& in_list, Array& not_in_list) const;

  std::string path_;  // JSON pointer of the map being merged, for errors
};

// Where an item sits in `list`: by merge key value for maps, by value
// otherwise (Go: index).
long position(const Array& list, const Value& item, std::string_view key, Value::Kind kind) {
  static const Value null;
  auto key_of = [&](const Value& v) -> const Value& {
    if (kind != Value::Kind::Object) return v;
    const Value* k = v.find(key);
    return k ? *k : null;
  };
  const Value& wanted = key_of(item);
  for (size_t i = 0; i < list.size(); ++i) {
    if (key_of(list[i]) == wanted) return static_cast<long>(i);
  }
  return -1;
}

// The first map of `list` whose `key` equals `value`.
long find_by_key(const Array& list, std::string_view key, const Value& value) {
  for (size_t i = 0; i < list.size(); ++i) {
    const Value* k = list[i].find(key);
    if (k && *k == value) return static_cast<long>(i);
  }
  return -1;
}

PatchResult<Value> Merger::merge_map(const Value& original, const Value& patch, std::string_view type) {
  if (const Value* directive = patch.find(kDirective)) {
    if (is_string(directive, "replace")) {
      Value replaced = patch;
      replaced.erase(kDirective);
      return replaced;
    }
    if (is_string(directive, "delete")) return Value(Object{});
    return error("unknown patch type: " + go_format(*directive) + " in map: " + go_format(patch));
  }

  Value out = original.is_object() ? original : Value(Object{});
  if (patch.find(kRetainKeys)) {
    if (auto e = apply_retain_keys(out, patch)) return std::move(*e);
  }
  std::vector<std::string_view> consumed;  // list fields merged with their $setElementOrder
  if (auto e = apply_element_order(out, patch, type, consumed)) return std::move(*e);

  // Patch members in key order, so `$deleteFromPrimitiveList/x` runs before `x`.
  for (const Member& member : patch.get_object()) {
    std::string_view field = member.key.get_string();
    const Value& patch_value = member.value;
    if (field == kRetainKeys || starts_with(field, kSetElementOrder)) continue;
    if (std::find(consumed.begin(), consumed.end(), field) != consumed.end()) continue;
    const bool is_delete_list = starts_with(field, kDeleteFromPrimitiveList);
    if (is_delete_list) field.remove_prefix(kDeleteFromPrimitiveList.size());

    if (patch_value.is_null()) {
      out.erase(field);
      continue;
    }
    const Value* found = out.find(field);
    if (!found || found->kind() != patch_value.kind()) {
      // Absent, or of another type: the patch value replaces it.
      if (is_delete_list) continue;
      if (auto added = strip_directives(patch_value, true)) {
        out.set(field, std::move(*added));
      } else {
        out.erase(field);
      }
      continue;
    }

    const size_t path_length = path_.size();
    path_ += '/';
    append_pointer_token(path_, field);
    const FieldMeta meta = field_meta(type, field);
    PatchResult<Value> merged = patch_value;
    if (patch_value.is_object()) {
      if (meta.strategy != Strategy::Replace) merged = merge_map(*found, patch_value, meta.type);
    } else if (patch_value.is_array()) {
      merged = merge_slice_handler(*found, patch_value, meta, is_delete_list);
    }
    if (!merged) return std::move(merged).error();
    path_.resize(path_length);
    out.set(field, std::move(*merged));
  }
  return out;
}

// Go: applyRetainKeysDirective. Every field the patch sets must be listed;
// the original keeps only listed fields.
std::optional<PatchError> Merger::apply_retain_keys(Value& out, const Value& patch) {
  const Value& retain = *patch.find(kRetainKeys);
  if (!retain.is_array()) return error("invalid patch format of retainKeys");
  auto listed = [&](std::string_view key) {
    for (const Value& k : retain.get_array()) {
      if (k.is_string() && k.get_string() == key) return true;
    }
    return false;
  };
  for (const Member& m : patch.get_object()) {
    const std::string_view key = m.key.get_string();
    if (key == kRetainKeys || m.value.is_null() || starts_with(key, kDeleteFromPrimitiveList) ||
        starts_with(key, kSetElementOrder)) {
      continue;
    }
    if (!listed(key)) return error("invalid patch format of retainKeys");
  }
  Object kept;
  for (const Member& m : out.get_object()) {
    if (listed(m.key.get_string())) kept.push_back(m);
  }
  out = Value(std::move(kept));
  return std::nullopt;
}

// Go: mergePatchIntoOriginal. Each `$setElementOrder/x` merges list x now and
// orders it: $setElementOrder first, then the patch, then the original.
std::optional<PatchError> Merger::apply_element_order(Value& out, const Value& patch, std::string_view type,
                                                      std::vector<std::string_view>& consumed) {
  for (const Member& member : patch.get_object()) {
    const std::string_view key = member.key.get_string();
    if (!starts_with(key, kSetElementOrder)) continue;
    const Value& order = member.value;
    if (!order.is_array()) return error("expected a list for " + std::string(key) + ", got " + to_json(order));
    const std::string_view field = key.substr(kSetElementOrder.size());
    const Value* original_list = out.find(field);
    const Value* patch_list = patch.find(field);
    if (original_list && !original_list->is_array()) {
      return error("expected a list for " + std::string(field) + ", got " + to_json(*original_list));
    }
    if (patch_list && !patch_list->is_array()) {
      return error("expected a list for " + std::string(field) + " in the patch, got " + to_json(*patch_list));
    }
    const FieldMeta meta = field_meta(type, field);
    const Array& original_items = original_list ? original_list->get_array() : items(Value());
    const Array& patch_items = patch_list ? patch_list->get_array() : items(Value());
    if (auto e = validate_order(patch_items, order.get_array(), meta.merge_key)) return e;

    Value merged;
    if (original_list && patch_list) {
      auto result = merge_slice_handler(*original_list, *patch_list, meta, false);
      if (!result) return std::move(result).error();
      merged = std::move(*result);
    } else if (patch_list) {
      merged = *strip_directives(*patch_list, false);
    } else if (original_list) {
      merged = *original_list;
    } else {
      continue;
    }

    Array in_order, server_only;
    if (auto e = partition(merged.get_array(), order.get_array(), meta.merge_key, in_order, server_only)) return e;
    auto kind = element_kind(original_items, patch_items);
    if (!kind) return std::move(kind).error();
    auto sorted = normalize(std::move(in_order), std::move(server_only), order.get_array(), original_items,
                            meta.merge_key, *kind);
    if (!sorted) return std::move(sorted).error();
    out.set(field, Value(std::move(*sorted)));
    if (patch_list) consumed.push_back(field);
  }
  return std::nullopt;
}

PatchResult<Value> Merger::merge_slice_handler(const Value& original, const Value& patch, const FieldMeta& meta,
                                               bool is_delete_list) {
  // kubectl deletes from a primitive list even where the field has no merge strategy.
  if (meta.strategy == Strategy::Merge || is_delete_list) return merge_slice(original, patch, meta, is_delete_list);
  return patch;
}

PatchResult<Value> Merger::merge_slice(const Value& original, const Value& patch, const FieldMeta& meta,
                                       bool is_delete_list) {
  if (original.size() == 0 && patch.size() == 0) return original;
  SINDRI_TRY(kind, element_kind(original.get_array(), patch.get_array()));
  const std::string_view key = meta.merge_key;

  Array original_items = original.get_array();
  Array patch_items;
  Array merged;
  if (kind != Value::Kind::Object) {
    if (is_delete_list) {
      for (const Value& item : original_items) {
        if (std::find(patch.get_array().begin(), patch.get_array().end(), item) == patch.get_array().end()) {
          merged.push_back(item);
        }
      }
      return Value(std::move(merged));
    }
    patch_items = patch.get_array();
    for (const Array* list : {&original_items, &patch_items}) {
      for (const Value& item : *list) {
        if (std::find(merged.begin(), merged.end(), item) == merged.end()) merged.push_back(item);
      }
    }
  } else {
    if (key.empty()) return error("cannot merge lists without merge key for " + std::string(meta.type));
    // `$patch` elements: delete by merge key, or replace the whole list.
    bool replace = false;
    for (const Value& item : patch.get_array()) {
      const Value* directive = item.find(kDirective);
      if (!directive) {
        patch_items.push_back(item);
      } else if (is_string(directive, "delete")) {
        const Value* key_value = item.find(key);
        if (!key_value) return no_merge_key(item, key);
        std::erase_if(original_items, [&](const Value& o) {
          const Value* k = o.find(key);
          return k && *k == *key_value;
        });
      } else if (is_string(directive, "replace")) {
        replace = true;
      } else if (is_string(directive, "merge")) {
        return error("merging lists cannot yet be specified in the patch");
      } else {
        return error("unknown patch type: " + go_format(*directive) + " in map: " + go_format(item));
      }
    }
    if (replace) {
      original_items = std::move(patch_items);
      patch_items.clear();
    }
    merged = original_items;
    for (const Value& item : patch_items) {
      const Value* key_value = item.find(key);
      if (!key_value) return no_merge_key(item, key);
      const long at = find_by_key(merged, key, *key_value);
      if (at < 0) {
        merged.push_back(item);
        continue;
      }
      const size_t path_length = path_.size();
      path_ += '/';
      path_ += std::to_string(at);
      SINDRI_TRY(item_merged, merge_map(merged[static_cast<size_t>(at)], item, meta.type));
      path_.resize(path_length);
      merged[static_cast<size_t>(at)] = std::move(item_merged);
    }
  }

  Array in_patch, server_only;
  if (auto e = partition(merged, patch_items, key, in_patch, server_only)) return std::move(*e);
  SINDRI_TRY(sorted, normalize(std::move(in_patch), std::move(server_only), patch_items, original_items, key, kind));
  return Value(std::move(sorted));
}

// Go: sliceElementType. All elements of both lists share one type, and it is
// not a list.
PatchResult<Value::Kind> Merger::element_kind(const Array& a, const Array& b) const {
  std::optional<Value::Kind> kind;
  for (const Array* list : {&a, &b}) {
    for (const Value& item : *list) {
      if (!kind) {
        kind = item.kind();
        if (item.is_array()) return error("lists of lists are not supported");
      } else if (*kind != item.kind() || item.is_null()) {
        return error("list element types are not identical: [" + go_format(Value(a)) + " " + go_format(Value(b)) + "]");
      }
    }
  }
  if (!kind) return error("no elements in any of the given slices");
  if (*kind == Value::Kind::Null) {
    return error("list element types are not identical: [" + go_format(Value(a)) + " " + go_format(Value(b)) + "]");
  }
  return *kind;
}

// Go: validatePatchWithSetOrderList. The patch list's items (deletions
// aside) appear in the $setElementOrder list, in the same relative order.
std::optional<PatchError> Merger::validate_order(const Array& patch_list, const Array& order,
                                                 std::string_view key) const {
  if (patch_list.empty() || order.empty()) return std::nullopt;
  Array kept;
  for (const Value& item : patch_list) {
    if (!key.empty()) {
      if (!item.is_object()) return error("expected a map in " + to_json(Value(patch_list)));
      if (is_string(item.find(kDirective), "delete")) continue;
    }
    kept.push_back(item);
  }
  size_t p = 0, o = 0;
  while (p < kept.size() && o < order.size()) {
    if (kept[p].find(kDirective)) {
      ++p;
      continue;
    }
    bool equal = false;
    if (key.empty()) {
      equal = kept[p] == order[o];
    } else {
      if (!order[o].is_object()) return error("expected a map in " + to_json(Value(order)));
      const Value* left = kept[p].find(key);
      const Value* right = order[o].find(key);
      if (!left) return no_merge_key(kept[p], key);
      if (!right) return no_merge_key(order[o], key);
      equal = *left == *right;
    }
    if (equal) ++p;
    ++o;
  }
  if (p < kept.size()) {
    return error("The order in patch list:\n" + go_format(Value(patch_list)) + "\n doesn't match " +
                 std::string(kSetElementOrder) + " list:\n" + go_format(Value(order)));
  }
  return std::nullopt;
}

// Go: partitionMapsByPresentInList / partitionPrimitivesByPresentInList.
std::optional<PatchError> Merger::partition(const Array& merged, const Array& by, std::string_view key,
                                            Array& in_list, Array& not_in_list) const {
  for (const Value& item : merged) {
    bool found = false;
    if (key.empty()) {
      found = std::find(by.begin(), by.end(), item) != by.end();
    } else {
      if (!item.is_object()) return error("expected a map, got " + to_json(item));
      const Value* key_value = item.find(key);
      if (!key_value) return no_merge_key(item, key);
      for (const Value& other : by) {
        if (!other.is_object()) return error("expected a map, got " + to_json(other));
        const Value* k = other.find(key);
        if (k && *k == *key_value) {
          found = true;
          break;
        }
      }
    }
    (found ? in_list : not_in_list).push_back(item);
  }
  return std::nullopt;
}

// Go: normalizeElementOrder and mergeSortedSlice. Patch items keep the patch's
// order, original-only items the original's; an original-only item goes
// before a patch item only when both are in the original and it comes first
// there.
PatchResult<Array> Merger::normalize(Array patch_items, Array server_only, const Array& patch_order,
                                     const Array& server_order, std::string_view key, Value::Kind kind) const {
  SINDRI_TRY(left, sort_by(std::move(server_only), server_order, key, kind));
  SINDRI_TRY(right, sort_by(std::move(patch_items), patch_order, key, kind));
  Array out;
  out.reserve(left.size() + right.size());
  size_t i = 0, j = 0;
  while (i < left.size() || j < right.size()) {
    if (j >= right.size()) {
      out.push_back(std::move(left[i++]));
    } else if (i >= left.size()) {
      out.push_back(std::move(right[j++]));
    } else {
      const long li = position(server_order, left[i], key, kind);
      const long ri = position(server_order, right[j], key, kind);
      if (li >= 0 && ri >= 0 && li < ri) {
        out.push_back(std::move(left[i++]));
      } else {
        out.push_back(std::move(right[j++]));
      }
    }
  }
  return out;
}

// Go: normalizeSliceOrder. Stable sort by position in `order`; `$patch:
// delete` maps go last.
PatchResult<Array> Merger::sort_by(Array to_sort, const Array& order, std::string_view key,
                                   Value::Kind kind) const {
  Array deletions;
  if (kind == Value::Kind::Object) {
    for (const Array* list : {static_cast<const Array*>(&to_sort), &order}) {
      for (const Value& item : *list) {
        if (!item.is_object()) return error("expected a map, got " + to_json(item));
        if (!item.find(key)) return no_merge_key(item, key);
      }
    }
    auto deleted = std::stable_partition(to_sort.begin(), to_sort.end(), [](const Value& item) {
      return !is_string(item.find(kDirective), "delete");
    });
    deletions.assign(std::make_move_iterator(deleted), std::make_move_iterator(to_sort.end()));
    to_sort.erase(deleted, to_sort.end());
  }
  std::vector<std::pair<long, size_t>> ranks;
  ranks.reserve(to_sort.size());
  for (size_t i = 0; i < to_sort.size(); ++i) {
    const long at = position(order, to_sort[i], key, kind);
    ranks.emplace_back(at < 0 ? LONG_MAX : at, i);
  }
  std::stable_sort(ranks.begin(), ranks.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  Array sorted;
  sorted.reserve(to_sort.size() + deletions.size());
  for (const auto& rank : ranks) sorted.push_back(std::move(to_sort[rank.second]));
  for (Value& d : deletions) sorted.push_back(std::move(d));
  return sorted;
}

}  // namespace

PatchResult<Value> strategic_merge_patch(const Value& original, const Value& patch, std::string_view type) {
  if (!patch.is_object()) {
    return PatchError{"a strategic merge patch must be a map, got " + std::string(patch.kind_name()), "", {}};
  }
  Merger merger;
  return merger.merge_map(original, patch, type);
}

}  // namespace sindri::patch
