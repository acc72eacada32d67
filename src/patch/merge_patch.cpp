// JSON merge patch (RFC 7386), as evanphx/json-patch's MergePatch applies it
// for `kubectl patch --type merge`.

#include "patch/patch.hpp"

namespace sindri::patch {

Value merge_patch(const Value& original, const Value& patch) {
  if (!patch.is_object()) return patch;
  Value out = original.is_object() ? original : Value(Object{});
  for (const Member& member : patch.get_object()) {
    const std::string_view key = member.key.get_string();
    if (member.value.is_null()) {
      out.erase(key);
      continue;
    }
    const Value* current = out.find(key);
    out.set(key, merge_patch(current ? *current : Value(), member.value));
  }
  return out;
}

}  // namespace sindri::patch
