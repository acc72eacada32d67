#pragma once
// Patching Values the three ways kubectl does: strategic merge patch (SMP,
// driven by the per-field metadata of patch_meta.hpp), JSON merge patch
// (RFC 7386) and JSON patch (RFC 6902). Results are what `kubectl patch
// --local` gives for the same documents, compared as data.

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::patch {

struct PatchError {
  std::string message;                 // what is wrong (for SMP, kubectl's wording)
  std::string pointer;                 // JSON pointer into the original ("" = the root)
  std::optional<size_t> document;      // 0-based document of a stream, when known
  // "document N: MESSAGE (at POINTER)", each part only when known.
  std::string describe() const;
};

template <class T>
using PatchResult = Result<T, PatchError>;

enum class PatchType { Strategic, Merge, Json };

// "strategic", "merge", "json" as `kubectl patch --type` spells them.
std::optional<PatchType> parse_patch_type(std::string_view name);

// SMP of `patch` onto `original`, whose schema type (a name of the metadata
// table, e.g. "PodTemplateSpec") is `type`; "" means no metadata: maps merge,
// lists are replaced.
PatchResult<Value> strategic_merge_patch(const Value& original, const Value& patch,
                                         std::string_view type);

// RFC 7386: objects merge recursively, null deletes, anything else replaces.
Value merge_patch(const Value& original, const Value& patch);

// RFC 6902. `operations` must be an array of operation objects; an error
// names the failing operation's index, op and path.
PatchResult<Value> json_patch(const Value& original, const Value& operations);

struct Patched {
  Value value;
  // Things the caller should tell the user, e.g. that a kind without patch
  // metadata was merged with JSON merge patch instead.
  std::vector<std::string> notices;
};

// Patches a whole Kubernetes object: for Strategic, the metadata comes from
// its apiVersion and kind; a kind the table does not know falls back to JSON
// merge patch (as the API server does for custom resources) with a notice.
PatchResult<Patched> patch_object(const Value& original, const Value& patch, PatchType type);

// Multi-document patching. Each patch document applies to the original
// document with the same apiVersion, kind and metadata.name, or, with a
// target ("kind/name", kind case-insensitive), to that document; a patch
// that matches nothing is an error naming it. A JSON patch (an array) needs
// a target unless there is exactly one original document. Documents that are
// null (empty) are dropped from the output.
struct PatchedDocuments {
  std::vector<Value> documents;
  std::vector<std::string> notices;
};
PatchResult<PatchedDocuments> patch_documents(std::span<const Value> originals,
                                     std::span<const Value> patches, PatchType type,
                                     std::string_view target = {});

}  // namespace sindri::patch
