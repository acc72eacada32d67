#pragma once
// Response compression, as the Kubernetes API server does for large answers:
// gzip when the client's Accept-Encoding allows it.

#include <string>
#include <string_view>

#include "value/result.hpp"

namespace sindri::http {

// True when an Accept-Encoding header value accepts gzip (`gzip` or `*`
// listed without q=0).
bool accepts_gzip(std::string_view accept_encoding);

// True when a Content-Encoding header value says gzip.
bool is_gzip_encoded(std::string_view content_encoding);

// `bytes` as a gzip stream.
std::string gzip_compress(std::string_view bytes);
// The bytes a gzip stream holds, at most `max_bytes` of them; an error for a
// stream that is cut, corrupt or larger.
Result<std::string> gzip_decompress(std::string_view gzip, size_t max_bytes);

}  // namespace sindri::http
