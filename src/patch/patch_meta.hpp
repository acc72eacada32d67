#pragma once
// Strategic merge patch metadata: for each field of the Kubernetes types
// Sindri knows, the type of its value (of its elements, for a list), its
// patchStrategy and its patchMergeKey, as the Go struct tags of k8s.io/api
// declare them. The table itself is patch_meta.cpp.

#include <cstdint>
#include <span>
#include <string_view>

namespace sindri::patch {

enum class Strategy : uint8_t {
  None,     // maps merge key by key, lists are replaced (atomic)
  Merge,    // lists merge: by merge key for objects, as a set for scalars
  Replace,  // the patch value replaces the original
};

struct FieldMeta {
  std::string_view type;       // schema type of the value or of list elements; "" = none
  Strategy strategy = Strategy::None;
  bool retain_keys = false;    // patchStrategy also names retainKeys
  std::string_view merge_key;  // for lists of objects merged by Strategy::Merge
};

// One row of the table: field `field` of schema type `owner`.
struct FieldRow {
  std::string_view owner;
  std::string_view field;
  std::string_view type;
  std::string_view strategy;  // as the Go tag spells it: "", "merge", "replace", "merge,retainKeys"
  std::string_view merge_key;
};

// A top-level kind: its API group ("" for core) and schema type.
struct KindRow {
  std::string_view group;
  std::string_view kind;
  std::string_view type;
};

// The metadata of `field` inside `owner`; an empty FieldMeta for fields (or
// owners) the table does not list.
FieldMeta field_meta(std::string_view owner, std::string_view field);

// The schema type of an object with this apiVersion and kind (the version is
// ignored), or "" when the table has no metadata for it.
std::string_view type_for_kind(std::string_view api_version, std::string_view kind);

std::span<const FieldRow> field_rows();
std::span<const KindRow> kind_rows();

}  // namespace sindri::patch
