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

Result<YamlEventParser, SyntaxError> YamlEventParser::open(std::string_view text) {
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
