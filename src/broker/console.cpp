#include "broker/console.hpp"

#include <sys/stat.h>

#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "broker/api_error.hpp"
#include "broker/console_files.hpp"
#include "http/gzip.hpp"
#include "http/shared_body.hpp"
#include "value/digest.hpp"

namespace sindri::broker {
namespace {

constexpr std::string_view kRoot = "/ui";

// Vite puts every content-hashed file here: a new build has new names.
constexpr std::string_view kImmutableDirectory = "assets/";

// CodeMirror sets styles inline, and the parameter form's validator (ajv)
// compiles each schema into a function: hence 'unsafe-inline' for styles and
// 'unsafe-eval' for scripts. No inline script, no other origin.
constexpr std::string_view kContentSecurityPolicy =
    "default-src 'self'; script-src 'self' 'unsafe-eval'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'";

struct ConsoleFile {
  std::string content_type;
  std::string etag;       // of the plain bytes
  std::string gzip_etag;  // of the gzipped ones: another representation, another tag
  std::shared_ptr<const http::SharedBody> plain;
  std::shared_ptr<const http::SharedBody> gzipped;  // null when compression does not pay
};

// Files of ui.directory kept in memory at most; past it the cache starts
// again, since every console build leaves files of new names.
constexpr size_t kMaxCachedBytes = 64 * 1024 * 1024;

std::string_view extension_of(std::string_view path) {
  const size_t slash = path.rfind('/');
  const size_t dot = path.rfind('.');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return {};
  return path.substr(dot + 1);
}

std::string_view content_type_of(std::string_view path) {
  static const std::map<std::string_view, std::string_view> kTypes = {
      {"html", "text/html; charset=utf-8"},   {"js", "text/javascript; charset=utf-8"},
      {"mjs", "text/javascript; charset=utf-8"}, {"css", "text/css; charset=utf-8"},
      {"json", "application/json"},           {"map", "application/json"},
      {"svg", "image/svg+xml"},               {"png", "image/png"},
      {"ico", "image/x-icon"},                {"woff2", "font/woff2"},
      {"txt", "text/plain; charset=utf-8"},
  };
  auto found = kTypes.find(extension_of(path));
  return found == kTypes.end() ? "application/octet-stream" : found->second;
}

bool compressible(std::string_view content_type) {
  return content_type.starts_with("text/") || content_type == "application/json" || content_type == "image/svg+xml";
}

std::shared_ptr<const ConsoleFile> make_file(std::string_view path, std::string bytes) {
  auto file = std::make_shared<ConsoleFile>();
  file->content_type = content_type_of(path);
  const std::string digest = sha256_hex(bytes).substr(0, 32);
  file->etag = "\"" + digest + "\"";
  file->gzip_etag = "\"" + digest + "-gzip\"";
  if (compressible(file->content_type)) {
    std::string gzipped = http::gzip_compress(bytes);
    if (gzipped.size() < bytes.size()) file->gzipped = http::SharedBody::make(std::move(gzipped));
  }
  file->plain = http::SharedBody::make(std::move(bytes));
  return file;
}

// A path relative to the console's root that stays inside it: no empty, "."
// or ".." segment, no backslash, no NUL.
bool stays_inside(std::string_view relative) {
  if (relative.find('\\') != std::string_view::npos || relative.find('\0') != std::string_view::npos) return false;
  size_t start = 0;
  while (start <= relative.size()) {
    size_t end = relative.find('/', start);
    if (end == std::string_view::npos) end = relative.size();
    const std::string_view segment = relative.substr(start, end - start);
    if (segment.empty() || segment == "." || segment == "..") return false;
    start = end + 1;
  }
  return true;
}

const std::map<std::string, std::shared_ptr<const ConsoleFile>, std::less<>>& embedded_files() {
  static const auto files = [] {
    std::map<std::string, std::shared_ptr<const ConsoleFile>, std::less<>> made;
    for (const EmbeddedConsoleFile& file : embedded_console_files()) {
      made.emplace(std::string(file.path), make_file(file.path, std::string(file.bytes)));
    }
    return made;
  }();
  return files;
}

// Files read from ui.directory, kept while their size and modification time
// stay the same, so that each is read and compressed once per change.
class DirectoryFiles {
 public:
  std::shared_ptr<const ConsoleFile> find(const std::string& directory, std::string_view relative) {
    const std::string path = directory + "/" + std::string(relative);
    struct stat status {};
    if (::stat(path.c_str(), &status) != 0 || !S_ISREG(status.st_mode)) {
      forget(path);
      return nullptr;
    }
    const Stamp stamp{status.st_mtim.tv_sec, status.st_mtim.tv_nsec, status.st_size};
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto cached = cache_.find(path);
      if (cached != cache_.end() && cached->second.stamp == stamp) return cached->second.file;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) return nullptr;
    std::ostringstream bytes;
    bytes << in.rdbuf();
    auto file = make_file(relative, std::move(bytes).str());
    const size_t size = file->plain->bytes().size() + (file->gzipped ? file->gzipped->bytes().size() : 0);
    std::lock_guard<std::mutex> lock(mutex_);
    if (cached_bytes_ + size > kMaxCachedBytes) {
      cache_.clear();
      cached_bytes_ = 0;
    }
    auto& entry = cache_[path];
    cached_bytes_ += size - entry.size;
    entry = Entry{stamp, file, size};
    return file;
  }

 private:
  struct Stamp {
    int64_t seconds;
    int64_t nanoseconds;
    int64_t size;
    bool operator==(const Stamp&) const = default;
  };
  struct Entry {
    Stamp stamp;
    std::shared_ptr<const ConsoleFile> file;
    size_t size = 0;
  };

  void forget(const std::string& path) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto cached = cache_.find(path);
    if (cached == cache_.end()) return;
    cached_bytes_ -= cached->second.size;
    cache_.erase(cached);
  }

  std::mutex mutex_;
  std::map<std::string, Entry> cache_;
  size_t cached_bytes_ = 0;
};

DirectoryFiles& directory_files() {
  static DirectoryFiles files;
  return files;
}

// Whether an If-None-Match header (a list of tags, weak or strong, or *)
// names `etag`; compared weakly, as RFC 9110 asks of If-None-Match.
bool matches_if_none_match(std::string_view header, std::string_view etag) {
  while (!header.empty()) {
    const size_t comma = header.find(',');
    std::string_view tag = header.substr(0, comma);
    header = comma == std::string_view::npos ? std::string_view() : header.substr(comma + 1);
    while (!tag.empty() && (tag.front() == ' ' || tag.front() == '\t')) tag.remove_prefix(1);
    while (!tag.empty() && (tag.back() == ' ' || tag.back() == '\t')) tag.remove_suffix(1);
    if (tag.starts_with("W/")) tag.remove_prefix(2);
    if (tag == "*" || tag == etag) return true;
  }
  return false;
}

http::Response not_found_answer(std::string message) {
  return error_response(ApiError{404, "not_found", std::move(message), Value(), std::nullopt});
}

}  // namespace

bool is_console_path(std::string_view path) {
  return path == kRoot || (path.starts_with(kRoot) && path[kRoot.size()] == '/');
}

http::Response serve_console(const http::Request& request, const std::string& directory) {
  if (request.path == kRoot) {
    http::Response redirect;
    redirect.status = 301;
    const size_t query = request.target.find('?');
    redirect.headers.push_back(
        {"Location", std::string(kRoot) + "/" + (query == std::string::npos ? "" : request.target.substr(query))});
    return redirect;
  }
  std::string_view relative = std::string_view(request.path).substr(kRoot.size() + 1);
  if (relative.empty()) relative = "index.html";
  if (!stays_inside(relative)) return not_found_answer("no such file in the console: " + request.raw_path);

  std::shared_ptr<const ConsoleFile> file;
  if (!directory.empty()) {
    file = directory_files().find(directory, relative);
  } else if (embedded_files().empty()) {
    return not_found_answer(
        "this broker was built without the console: build it (npm run build in ui/) before the broker, or set "
        "ui.directory");
  } else {
    auto found = embedded_files().find(relative);
    if (found != embedded_files().end()) file = found->second;
  }
  if (!file) return not_found_answer("no such file in the console: " + request.raw_path);

  const bool gzip = file->gzipped && http::accepts_gzip(request.header("Accept-Encoding"));
  const std::string& etag = gzip ? file->gzip_etag : file->etag;
  http::Response response;
  response.content_type = file->content_type;
  response.headers.push_back({"ETag", etag});
  response.headers.push_back({"Cache-Control", relative.starts_with(kImmutableDirectory)
                                                   ? "public, max-age=31536000, immutable"
                                                   : "no-cache"});
  response.headers.push_back({"X-Content-Type-Options", "nosniff"});
  response.headers.push_back({"Referrer-Policy", "no-referrer"});
  if (file->content_type.starts_with("text/html")) {
    response.headers.push_back({"Content-Security-Policy", std::string(kContentSecurityPolicy)});
  }
  if (file->gzipped) response.headers.push_back({"Vary", "Accept-Encoding"});
  if (matches_if_none_match(request.header("If-None-Match"), etag)) {
    response.status = 304;
    return response;
  }
  if (gzip) response.headers.push_back({"Content-Encoding", "gzip"});
  response.shared_body = gzip ? file->gzipped : file->plain;
  return response;
}

}  // namespace sindri::broker
