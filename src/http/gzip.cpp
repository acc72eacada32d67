#include "http/gzip.hpp"

#include <algorithm>
#include <stdexcept>

#include <zlib.h>

namespace sindri::http {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if ((a[i] | 0x20) != (b[i] | 0x20)) return false;
  }
  return true;
}

// "q=0", "q=0.0", "q=0.000" refuse the coding.
bool refused(std::string_view parameters) {
  while (!parameters.empty()) {
    const size_t semicolon = parameters.find(';');
    const std::string_view parameter = trim(parameters.substr(0, semicolon));
    parameters = semicolon == std::string_view::npos ? std::string_view() : parameters.substr(semicolon + 1);
    if (parameter.size() >= 2 && (parameter[0] == 'q' || parameter[0] == 'Q') && parameter[1] == '=') {
      const std::string_view value = parameter.substr(2);
      return value.find_first_not_of("0.") == std::string_view::npos;
    }
  }
  return false;
}

}  // namespace

bool accepts_gzip(std::string_view accept_encoding) {
  while (!accept_encoding.empty()) {
    const size_t comma = accept_encoding.find(',');
    const std::string_view item = accept_encoding.substr(0, comma);
    accept_encoding = comma == std::string_view::npos ? std::string_view() : accept_encoding.substr(comma + 1);
    const size_t semicolon = item.find(';');
    const std::string_view coding = trim(item.substr(0, semicolon));
    const std::string_view parameters = semicolon == std::string_view::npos ? std::string_view() : item.substr(semicolon + 1);
    if ((equals_ignoring_case(coding, "gzip") || coding == "*") && !refused(parameters)) return true;
  }
  return false;
}

bool is_gzip_encoded(std::string_view content_encoding) { return equals_ignoring_case(trim(content_encoding), "gzip"); }

std::string gzip_compress(std::string_view bytes) {
  z_stream stream{};
  // 15 + 16: a gzip header and trailer around the deflate stream.
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("zlib: deflateInit2 failed");
  }
  std::string out(deflateBound(&stream, bytes.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int result = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (result != Z_STREAM_END) throw std::runtime_error("zlib: deflate did not finish");
  return out;
}

Result<std::string> gzip_decompress(std::string_view gzip, size_t max_bytes) {
  z_stream stream{};
  if (inflateInit2(&stream, 15 + 16) != Z_OK) return make_error("gzip: cannot start zlib");
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gzip.data()));
  stream.avail_in = static_cast<uInt>(gzip.size());
  std::string out;
  int result = Z_OK;
  while (result == Z_OK) {
    const size_t used = out.size();
    if (used >= max_bytes) break;
    out.resize(std::min(max_bytes, std::max<size_t>(used * 2, 64 * 1024)));
    stream.next_out = reinterpret_cast<Bytef*>(out.data() + used);
    stream.avail_out = static_cast<uInt>(out.size() - used);
    result = inflate(&stream, Z_NO_FLUSH);
    out.resize(stream.total_out);
  }
  inflateEnd(&stream);
  if (result == Z_STREAM_END) return out;
  if (result == Z_OK) return make_error("gzip: the body holds more than " + std::to_string(max_bytes) + " bytes");
  return make_error(std::string("gzip: the body is cut or corrupt") + (stream.msg ? std::string(": ") + stream.msg : ""));
}

}  // namespace sindri::http
