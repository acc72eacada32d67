#pragma once
// Reading a whole file, with an error that names it and says why.

#include <filesystem>
#include <string>
#include <string_view>

#include "value/result.hpp"

namespace sindri {

// The file's bytes, or "cannot read WHAT PATH: REASON", e.g. "cannot read
// configuration file x.yaml: No such file or directory" (a directory is
// refused too: reading one would look like reading an empty file).
Result<std::string> read_file_text(const std::filesystem::path& path, std::string_view what = "file");

}  // namespace sindri
