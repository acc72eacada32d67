#include "value/file_text.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

namespace sindri {

Result<std::string> read_file_text(const std::filesystem::path& path, std::string_view what) {
  const std::string label = "cannot read " + std::string(what) + " " + path.string() + ": ";
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return make_error(label + "is a directory");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    return make_error(label + (err != 0 ? std::strerror(err) : "cannot open file"));
  }
  std::string out{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) return make_error(label + "read error");
  return out;
}

}  // namespace sindri
