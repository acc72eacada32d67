#pragma once
// The `format` checks (formats.cpp).

#include <string_view>

namespace sindri::schema {

enum class Format {
  Unknown,  // passes everything
  DateTime,
  Date,
  Time,
  Email,
  IdnEmail,
  Hostname,
  Ipv4,
  Ipv6,
  Uri,
  UriReference,
  Iri,
  IriReference,
  Uuid,
  Regex,
  JsonPointer,
  RelativeJsonPointer,
};

Format format_from_name(std::string_view name);
// True if `text` is valid for `format`.
bool check_format(Format format, std::string_view text);

}  // namespace sindri::schema
