#pragma once
// libfyaml's event parser set up the one way every YAML reader here needs it
// (YAML 1.1 scalars, no JSON mode, no depth limit, diagnostics collected, not
// printed), so that readers of the same text see the same events and the same
// syntax errors. libfyaml's types are only named here, never included.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "value/result.hpp"

struct fy_diag;
struct fy_event;
struct fy_mark;
struct fy_parser;
struct fy_token;

namespace sindri::yaml_detail {

// 1-based; 0 where libfyaml gives no mark.
struct Position {
  uint32_t line = 0;
  uint32_t column = 0;
};

Position position_of(const fy_mark* mark);
// The text of a tag, anchor or alias token; a scalar's is scalar_text's.
std::string_view token_text(fy_token* token);

struct SyntaxError {
  Position where;
  std::string message;
};

class YamlEventParser {
 public:
  // `text` must outlive the parser.
  static Result<YamlEventParser, SyntaxError> open(std::string_view text);

  // The next event (give it back with release), or nullptr at the end of the
  // stream or on a syntax error.
  fy_event* next();
  void release(fy_event* event);
  // Once next() has returned nullptr: the syntax error that ended the
  // stream, if one did.
  Result<Ok, SyntaxError> outcome() const;

  // The value of a scalar event's token (event->scalar.value), valid until
  // the event is released or this is called again.
  std::string_view scalar_text(fy_token* value);

 private:
  using DiagHandle = std::unique_ptr<fy_diag, void (*)(fy_diag*)>;
  using ParserHandle = std::unique_ptr<fy_parser, void (*)(fy_parser*)>;
  YamlEventParser(std::string_view text, DiagHandle diag, ParserHandle parser)
      : text_(text), diag_(std::move(diag)), parser_(std::move(parser)) {}

  std::string_view text_;
  DiagHandle diag_;
  ParserHandle parser_;
  std::string scalar_buffer_;  // scalar_text's, when libfyaml's text cannot be used
};

}  // namespace sindri::yaml_detail
