#pragma once
// libfyaml's event parser set up the one way every YAML reader here needs it
// (YAML 1.1 scalars, no JSON mode, no depth limit, diagnostics collected, not
// printed), so that readers of the same text see the same events and the same
// syntax errors. libfyaml's types are only named here, never included.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "value/result.hpp"
#include "value/yaml/libfyaml/block_indent.hpp"

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
  // Which document (from 0) holds an error found before parsing (a refused
  // character, or the syntax error on a line before it); the parser's own
  // errors leave it to the caller, which counts documents.
  size_t document = 0;
};

class YamlEventParser {
 public:
  // `text` must outlive the parser. Its events are those of a YAML reader:
  // where libfyaml would read a block scalar with no content wrongly (see
  // libfyaml/block_indent.hpp), the parser starts again on the text repaired and
  // passes over the events it has already given.
  static Result<YamlEventParser, SyntaxError> open(std::string_view text);
  // libfyaml's events as they come, for the repair's own look at a text.
  static Result<YamlEventParser, SyntaxError> open_unrepaired(std::string_view text);

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

  // The text the events' marks count offsets (input_pos) in: the text given
  // to open, or its repair, which has the same lines and columns up to each
  // inserted indentation indicator. May change with each next().
  std::string_view text() const { return text_; }

 private:
  using DiagHandle = std::unique_ptr<fy_diag, void (*)(fy_diag*)>;
  using ParserHandle = std::unique_ptr<fy_parser, void (*)(fy_parser*)>;
  YamlEventParser(std::string_view text, DiagHandle diag, ParserHandle parser, bool repairs)
      : text_(text), diag_(std::move(diag)), parser_(std::move(parser)), repairs_(repairs) {}
  static Result<YamlEventParser, SyntaxError> create(std::string_view text, bool repairs);
  static SyntaxError refused_character(std::string_view text, size_t offset, std::string message);
  // The text with each tab that libfyaml would crash on made a space, or
  // null when it has none (libfyaml/tab_separators.cpp).
  static std::unique_ptr<std::string> with_separator_tabs_as_spaces(std::string_view text);
  // Starts again on the text with the indentation indicators libfyaml needs,
  // up to where `misread` was found; false (and failure_ set) if it cannot.
  bool restart_repaired(const EmptyBlockScalar& misread);
  // libfyaml 0.7.12 refuses an empty entry of an indentless sequence
  // (`k:\n-\n- a`, which kubectl reads as {k: [null, a]}) with "did not find
  // expected node content" at the next token. When the syntax error is that
  // one, just after such an entry, starts again on the text with ` ~` after
  // the dash of every empty block entry the scanner finds (no token after it
  // on its line, the next one no further right): the same nulls, and the
  // same lines and columns but for what follows those dashes on their lines.
  // False if the error is another or the text cannot be repaired.
  bool restart_with_empty_entries();
  // Parses `repaired` (which becomes text_) from its start and passes over
  // the events already given; false (and failure_ set) if it cannot.
  bool reopen(std::unique_ptr<std::string> repaired);

  std::string_view text_;
  DiagHandle diag_;
  ParserHandle parser_;
  bool repairs_;
  std::unique_ptr<std::string> repaired_;  // text_, once repaired (libfyaml keeps pointers into it)
  EmptyBlockScalarWatch watch_;
  size_t given_ = 0;  // events next() has returned
  size_t restarts_ = 0;
  size_t empty_entry_restarts_ = 0;
  std::optional<SyntaxError> failure_;  // the repair's own, when it gave up
  std::string scalar_buffer_;           // scalar_text's, when libfyaml's text cannot be used
};

}  // namespace sindri::yaml_detail
