#include "value/yaml_events.hpp"

#include <libfyaml.h>

namespace sindri::yaml_detail {

Position position_of(const fy_mark* mark) {
  return mark ? Position{static_cast<uint32_t>(mark->line + 1), static_cast<uint32_t>(mark->column + 1)}
              : Position{};
}

std::string_view token_text(fy_token* token) {
  size_t length = 0;
  const char* text = fy_token_get_text(token, &length);
  return text ? std::string_view(text, length) : std::string_view();
}

namespace {

// The length of the UTF-8 sequence starting at text[at], or 0 if it is not
// well-formed (overlong forms, surrogates and code points past U+10FFFF
// included).
size_t utf8_sequence_length(std::string_view text, size_t at) {
  const auto byte = [&](size_t i) { return at + i < text.size() ? static_cast<unsigned char>(text[at + i]) : 0u; };
  const unsigned lead = byte(0);
  const auto continuation = [&](size_t i, unsigned low = 0x80, unsigned high = 0xBF) {
    return byte(i) >= low && byte(i) <= high;
  };
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return continuation(1) ? 2 : 0;
  if (lead == 0xE0) return continuation(1, 0xA0) && continuation(2) ? 3 : 0;
  if (lead == 0xED) return continuation(1, 0x80, 0x9F) && continuation(2) ? 3 : 0;
  if (lead >= 0xE1 && lead <= 0xEF) return continuation(1) && continuation(2) ? 3 : 0;
  if (lead == 0xF0) return continuation(1, 0x90) && continuation(2) && continuation(3) ? 4 : 0;
  if (lead >= 0xF1 && lead <= 0xF3) return continuation(1) && continuation(2) && continuation(3) ? 4 : 0;
  if (lead == 0xF4) return continuation(1, 0x80, 0x8F) && continuation(2) && continuation(3) ? 4 : 0;
  return 0;
}

// YAML is Unicode text, and Debian's libfyaml never returns from a
// directive holding a byte that is not UTF-8 (`%` then 0xA6 spins in
// fy_scan_directive), so such text is refused before the parser sees it.
Result<Ok, SyntaxError> check_utf8(std::string_view text) {
  Position where{1, 1};
  for (size_t at = 0; at < text.size();) {
    const size_t length = utf8_sequence_length(text, at);
    if (length == 0) {
      static const char kHex[] = "0123456789ABCDEF";
      const auto bad = static_cast<unsigned char>(text[at]);
      return SyntaxError{where, std::string("invalid UTF-8: byte 0x") + kHex[bad >> 4] + kHex[bad & 0xF]};
    }
    if (text[at] == '\n') {
      ++where.line;
      where.column = 1;
    } else {
      ++where.column;
    }
    at += length;
  }
  return Ok{};
}

}  // namespace

Result<YamlEventParser, SyntaxError> YamlEventParser::open(std::string_view text) {
  if (auto utf8 = check_utf8(text); !utf8.ok()) return std::move(utf8).error();
  fy_diag_cfg diag_cfg;
  fy_diag_cfg_default(&diag_cfg);
  diag_cfg.fp = nullptr;
  diag_cfg.colorize = false;
  DiagHandle diag(fy_diag_create(&diag_cfg), fy_diag_destroy);
  if (!diag) return SyntaxError{{}, "cannot create the YAML diagnostics object"};
  fy_diag_set_collect_errors(diag.get(), true);

  fy_parse_cfg cfg{};
  cfg.flags = static_cast<fy_parse_cfg_flags>(FYPCF_QUIET | FYPCF_DEFAULT_VERSION_1_1 | FYPCF_JSON_NONE |
                                              FYPCF_DISABLE_DEPTH_LIMIT);
  cfg.diag = diag.get();
  ParserHandle parser(fy_parser_create(&cfg), fy_parser_destroy);
  if (!parser) return SyntaxError{{}, "cannot create the YAML parser"};
  if (fy_parser_set_string(parser.get(), text.data(), text.size()) != 0) {
    return SyntaxError{{}, "cannot read the YAML text"};
  }
  return YamlEventParser(std::move(diag), std::move(parser));
}

fy_event* YamlEventParser::next() { return fy_parser_parse(parser_.get()); }

void YamlEventParser::release(fy_event* event) { fy_parser_event_free(parser_.get(), event); }

Result<Ok, SyntaxError> YamlEventParser::outcome() const {
  if (!fy_parser_get_stream_error(parser_.get())) return Ok{};
  void* iterator = nullptr;
  while (fy_diag_error* err = fy_diag_errors_iterate(diag_.get(), &iterator)) {
    if (err->type >= FYET_ERROR) {
      // Unlike marks, collected diagnostics count from 1.
      return SyntaxError{Position{static_cast<uint32_t>(err->line), static_cast<uint32_t>(err->column)},
                         err->msg ? err->msg : "invalid YAML"};
    }
  }
  return SyntaxError{{}, "invalid YAML"};
}

}  // namespace sindri::yaml_detail
