#pragma once
// The console's build (ui/dist) as embedded in the binary at build time, so
// that a lone broker serves it; empty when the build had none.

#include <span>
#include <string_view>

namespace sindri::broker {

struct EmbeddedConsoleFile {
  std::string_view path;  // relative to ui/dist, e.g. "assets/index-3f2a.js"
  std::string_view bytes;
};

std::span<const EmbeddedConsoleFile> embedded_console_files();

}  // namespace sindri::broker
