#pragma once
// Response compression, as the Kubernetes API server does for large answers:
// gzip when the client's Accept-Encoding allows it.

#include <string>
#include <string_view>

namespace sindri::http {

// True when an Accept-Encoding header value accepts gzip (`gzip` or `*`
// listed without q=0).
bool accepts_gzip(std::string_view accept_encoding);

// `bytes` as a gzip stream.
std::string gzip_compress(std::string_view bytes);

}  // namespace sindri::http
