// Patching whole Kubernetes objects and multi-document streams.

#include "patch/patch.hpp"

#include <algorithm>
#include <cctype>

#include "patch/patch_meta.hpp"

namespace sindri::patch {

std::string PatchError::describe() const {
  std::string out;
  if (document) out += "document " + std::to_string(*document + 1) + ": ";
  out += message;
  if (!pointer.empty()) out += " (at " + pointer + ")";
  return out;
}

std::optional<PatchType> parse_patch_type(std::string_view name) {
  if (name == "strategic") return PatchType::Strategic;
  if (name == "merge") return PatchType::Merge;
  if (name == "json") return PatchType::Json;
  return std::nullopt;
}

namespace {

std::string_view string_at(const Value& object, std::string_view key) {
  const Value* v = object.find(key);
  return v && v->is_string() ? v->get_string() : std::string_view{};
}

std::string_view name_of(const Value& object) {
  const Value* metadata = object.find("metadata");
  return metadata ? string_at(*metadata, "name") : std::string_view{};
}

// "Kind/name" for messages.
std::string identity(const Value& object) {
  return std::string(string_at(object, "kind")) + "/" + std::string(name_of(object));
}

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// Which originals a patch document applies to.
PatchResult<std::vector<size_t>> targets_of(std::span<const Value> originals, const Value& patch,
                                            size_t patch_index, std::string_view target) {
  std::vector<size_t> found;
  const std::string label = "patch document " + std::to_string(patch_index + 1);
  if (!target.empty()) {
    const size_t slash = target.find('/');
    if (slash == std::string_view::npos || slash == 0 || slash + 1 == target.size()) {
      return PatchError{"--target must be KIND/NAME, got \"" + std::string(target) + "\"", "", {}};
    }
    const std::string_view kind = target.substr(0, slash);
    const std::string_view name = target.substr(slash + 1);
    for (size_t i = 0; i < originals.size(); ++i) {
      if (equal_ignoring_case(string_at(originals[i], "kind"), kind) && name_of(originals[i]) == name) {
        found.push_back(i);
      }
    }
    if (found.empty()) {
      return PatchError{label + ": the target " + std::string(target) + " matches no original document", "",
                        patch_index};
    }
    return found;
  }

  const bool identified = patch.is_object() && !string_at(patch, "kind").empty() && !name_of(patch).empty();
  if (!identified) {
    if (originals.size() == 1) return std::vector<size_t>{0};
    return PatchError{label + " has no kind and metadata.name to match against " +
                          std::to_string(originals.size()) + " original documents; use --target KIND/NAME",
                      "", patch_index};
  }
  const std::string_view api_version = string_at(patch, "apiVersion");
  for (size_t i = 0; i < originals.size(); ++i) {
    const Value& o = originals[i];
    if (string_at(o, "kind") == string_at(patch, "kind") && name_of(o) == name_of(patch) &&
        (api_version.empty() || string_at(o, "apiVersion") == api_version)) {
      found.push_back(i);
    }
  }
  if (found.empty()) {
    std::string what = identity(patch);
    if (!api_version.empty()) what = std::string(api_version) + " " + what;
    return PatchError{label + " (" + what + ") matches no original document", "", patch_index};
  }
  return found;
}

}  // namespace

PatchResult<Patched> patch_object(const Value& original, const Value& patch, PatchType type) {
  Patched out;
  switch (type) {
    case PatchType::Merge:
      out.value = merge_patch(original, patch);
      return out;
    case PatchType::Json: {
      SINDRI_TRY(patched, json_patch(original, patch));
      out.value = std::move(patched);
      return out;
    }
    case PatchType::Strategic:
      break;
  }
  const std::string_view api_version = string_at(original, "apiVersion");
  const std::string_view kind = string_at(original, "kind");
  const std::string_view schema = type_for_kind(api_version, kind);
  if (schema.empty()) {
    if (!patch.is_object()) {
      return PatchError{"a strategic merge patch must be a map, got " + std::string(patch.kind_name()), "", {}};
    }
    out.value = merge_patch(original, patch);
    out.notices.push_back("no strategic merge patch metadata for " +
                          (kind.empty() ? std::string("an object without kind") : std::string(kind)) +
                          (api_version.empty() ? "" : " (" + std::string(api_version) + ")") +
                          "; applied as a JSON merge patch (lists are replaced)");
    return out;
  }
  SINDRI_TRY(patched, strategic_merge_patch(original, patch, schema));
  out.value = std::move(patched);
  return out;
}

PatchResult<PatchedDocuments> patch_documents(std::span<const Value> originals, std::span<const Value> patches,
                                              PatchType type, std::string_view target) {
  PatchedDocuments out;
  for (const Value& document : originals) {
    if (!document.is_null()) out.documents.push_back(document);
  }
  size_t applied = 0;
  for (size_t p = 0; p < patches.size(); ++p) {
    const Value& patch = patches[p];
    if (patch.is_null()) continue;
    ++applied;
    SINDRI_TRY(targets, targets_of(out.documents, patch, p, target));
    for (size_t index : targets) {
      auto patched = patch_object(out.documents[index], patch, type);
      if (!patched) {
        PatchError error = std::move(patched).error();
        error.message = "patch " + std::to_string(p + 1) + " onto " + identity(out.documents[index]) +
                        ": " + error.message;
        error.document = index;
        return error;
      }
      out.documents[index] = std::move(patched->value);
      for (std::string& notice : patched->notices) out.notices.push_back(std::move(notice));
    }
  }
  if (applied == 0) return PatchError{"the patch holds no document", "", {}};
  return out;
}

}  // namespace sindri::patch
