#pragma once
// docs/settings.md, printed from broker::settings() and agent::settings().

#include <string>

namespace sindri::docs {

// The command that rewrites docs/settings.md, for messages that ask for it.
inline constexpr const char* kRegenerateSettingsDoc = "cmake --build build --target settings_doc";

std::string settings_markdown();

}  // namespace sindri::docs
