#include "value/yaml/events.hpp"

#include <libfyaml.h>

#include <algorithm>
#include <new>
#include <optional>
#include <vector>

#include "value/text_position.hpp"
#include "value/utf8.hpp"

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

// The length of the line break at text[at], or 0. YAML 1.1 breaks lines at
// CR LF, CR, LF, NEL, LS and PS.
size_t line_break_length(std::string_view text, size_t at) {
  switch (text[at]) {
    case '\n':
      return 1;
    case '\r':
      return text.substr(at, 2) == "\r\n" ? 2 : 1;
    case '\xC2':
      return text.substr(at, 2) == "\xC2\x85" ? 2 : 0;
    case '\xE2':
      return text.substr(at, 3) == "\xE2\x80\xA8" || text.substr(at, 3) == "\xE2\x80\xA9" ? 3 : 0;
    default:
      return 0;
  }
}

bool is_blank(char c) { return c == ' ' || c == '\t'; }

// A plain or quoted scalar's source as libfyaml marks it: between the quotes
// of a quoted one.
std::string_view source_of(std::string_view text, fy_token* value) {
  const size_t start = fy_token_start_mark(value)->input_pos;
  return text.substr(start, fy_token_end_mark(value)->input_pos - start);
}

// One line with nothing escaped: libfyaml's text is then the source itself,
// which fy_token_get_text returns without formatting anything.
bool reads_as_written(fy_scalar_style style, std::string_view source) {
  if (style != FYSS_PLAIN && style != FYSS_SINGLE_QUOTED && style != FYSS_DOUBLE_QUOTED) return false;
  for (size_t at = 0; at < source.size(); ++at) {
    if ((style == FYSS_SINGLE_QUOTED && source[at] == '\'') || (style == FYSS_DOUBLE_QUOTED && source[at] == '\\') ||
        line_break_length(source, at) != 0) {
      return false;
    }
  }
  return true;
}

// A single-quoted scalar's value from its source, as YAML 1.1 and kubectl
// read it: '' is a quote; a line break with the blanks around it folds to a
// space, or to the breaks of the empty lines after it; CR LF, CR and NEL
// read as a line feed, LS and PS as themselves.
void append_single_quoted(std::string_view source, std::string& out) {
  size_t at = 0;
  while (at < source.size()) {
    if (!is_blank(source[at]) && line_break_length(source, at) == 0) {
      out += source[at];
      at += source[at] == '\'' ? 2 : 1;
      continue;
    }
    const size_t blanks_start = at;
    bool folded = false, space = false;
    while (at < source.size()) {
      if (is_blank(source[at])) {
        ++at;
        continue;
      }
      const size_t length = line_break_length(source, at);
      if (length == 0) break;
      const bool first = !folded;
      folded = true;
      if (length == 3) {
        out.append(source, at, length);
      } else if (!first) {
        out += '\n';
      }
      space = first && length != 3;
      at += length;
    }
    if (!folded) out.append(source, blanks_start, at - blanks_start);
    if (space) out += ' ';
  }
}

// The formatter's output cut to the scanner's count, as fy_token_get_text
// gives it, but with no byte the formatter did not write, and its chunks freed.
void append_formatted(fy_token* value, std::string& out) {
  const size_t length = fy_token_get_text_length(value);
  std::unique_ptr<fy_token_iter, void (*)(fy_token_iter*)> iter(fy_token_iter_create(value), fy_token_iter_destroy);
  if (!iter) throw std::bad_alloc();
  for (const fy_iter_chunk* chunk = nullptr;
       out.size() < length && (chunk = fy_token_iter_chunk_next(iter.get(), chunk, nullptr));) {
    out.append(chunk->str, std::min(chunk->len, length - out.size()));
  }
}

// Where text[offset] is as libfyaml counts: lines end at every YAML 1.1
// break (CR LF, CR, LF, NEL, LS, PS), columns count characters.
Position position_at(std::string_view text, size_t offset) {
  Position where{1, 1};
  // libfyaml does not count a byte order mark at the start.
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  for (size_t at = text.starts_with(kByteOrderMark) ? kByteOrderMark.size() : 0; at < offset;) {
    if (const size_t length = line_break_length(text, at); length != 0) {
      ++where.line;
      where.column = 1;
      at += length;
      continue;
    }
    ++where.column;
    at += std::max<size_t>(1, utf8_sequence_length(text, at));
  }
  return where;
}

// Whether `line` is the marker `---` or `...`, alone or before a blank.
bool is_marker_line(std::string_view line, std::string_view marker) {
  return line.starts_with(marker) && (line.size() == marker.size() || is_blank(line[marker.size()]));
}

bool is_blank_or_comment(std::string_view line) {
  const size_t first = line.find_first_not_of(" \t");
  return first == std::string_view::npos || line[first] == '#';
}

// libfyaml refuses a `%YAML` directive of another major version than 1
// without saying where or why: the first such directive, if any. Directives
// stand only before a document (at the start of the stream or after `...`,
// until the `---` or the content that opens it), so a line of a scalar that
// reads `%YAML 2.0` is not one.
std::optional<SyntaxError> unsupported_version_directive(std::string_view text) {
  constexpr std::string_view kDirective = "%YAML";
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  bool before_document = true;
  size_t line_start = text.starts_with(kByteOrderMark) ? kByteOrderMark.size() : 0;
  while (line_start < text.size()) {
    size_t line_end = line_start;
    while (line_end < text.size() && line_break_length(text, line_end) == 0) ++line_end;
    const std::string_view line = text.substr(line_start, line_end - line_start);
    if (is_marker_line(line, "...")) {
      before_document = true;
    } else if (before_document && line.starts_with('%')) {
      if (line.starts_with(kDirective) && line.size() > kDirective.size() && is_blank(line[kDirective.size()])) {
        const size_t version_start = line.find_first_not_of(" \t", kDirective.size());
        const std::string_view version =
            version_start == std::string_view::npos
                ? std::string_view()
                : line.substr(version_start, line.find_first_of(" \t", version_start) - version_start);
        if (!version.empty() && !version.starts_with("1.")) {
          return SyntaxError{position_at(text, line_start + version_start),
                             "YAML version `" + std::string(version) + "` is not supported: only 1.x documents are read"};
        }
      }
    } else if (!is_blank_or_comment(line)) {
      before_document = false;
    }
    line_start = line_end + (line_end < text.size() ? line_break_length(text, line_end) : 0);
  }
  return std::nullopt;
}

struct BadCharacter {
  size_t offset;
  std::string message;
};

// YAML is Unicode text, and Debian's libfyaml never returns from a
// directive holding a byte that is not UTF-8 (`%` then 0xA6 spins in
// fy_scan_directive), so such text is refused before the parser sees it.
// So is a NUL, which YAML does not allow and libfyaml takes for the end of
// the text: whatever followed it would be dropped without a word.
std::optional<BadCharacter> first_bad_character(std::string_view text) {
  const size_t nul = std::min(text.find('\0'), text.size());
  if (const size_t bad = first_invalid_utf8(text, 0, nul); bad != nul) {
    return BadCharacter{bad, invalid_utf8_message(text[bad])};
  }
  if (nul != text.size()) return BadCharacter{nul, "a NUL character (U+0000), which YAML does not allow"};
  return std::nullopt;
}

}  // namespace

Result<YamlEventParser, SyntaxError> YamlEventParser::open(std::string_view text) { return create(text, true); }

Result<YamlEventParser, SyntaxError> YamlEventParser::open_unrepaired(std::string_view text) {
  return create(text, false);
}

// The error for a character refused before parsing, placed in the document
// the parser puts it in; or, when a line before it holds a syntax error,
// that error, which comes first. The parser reads a copy of the text with
// 'x' for every refused byte: the same lines, columns and documents.
SyntaxError YamlEventParser::refused_character(std::string_view text, size_t offset, std::string message) {
  const Position where = position_at(text, offset);
  std::string masked(text);
  size_t nul = std::min(masked.find('\0'), masked.size());
  for (size_t at = 0; at < masked.size();) {
    const size_t bad = first_invalid_utf8(masked, at, nul);
    if (bad == masked.size()) break;
    masked[bad] = 'x';
    // Each stretch is searched once: the mask stays linear in the text.
    if (bad == nul) nul = std::min(masked.find('\0', nul + 1), masked.size());
    at = bad + 1;
  }
  auto parser = open(masked);
  if (!parser) return SyntaxError{where, std::move(message), 0};
  size_t begun = 0;
  bool passed = false;
  while (fy_event* event = parser->next()) {
    const Position start = position_of(fy_event_start_mark(event));
    passed = start.line > where.line || (start.line == where.line && start.column > where.column);
    if (!passed && event->type == FYET_DOCUMENT_START) ++begun;
    parser->release(event);
    if (passed) break;
  }
  const size_t document = begun == 0 ? 0 : begun - 1;
  if (!passed) {
    auto outcome = parser->outcome();
    if (!outcome.ok() && outcome.error().where.line != 0 && outcome.error().where.line < where.line) {
      SyntaxError earlier = std::move(outcome).error();
      earlier.document = document;
      return earlier;
    }
  }
  return SyntaxError{where, std::move(message), document};
}

Result<YamlEventParser, SyntaxError> YamlEventParser::create(std::string_view text, bool repairs) {
  if (auto bad = first_bad_character(text)) {
    return refused_character(text, bad->offset, std::move(bad->message));
  }
  std::unique_ptr<std::string> spaced = with_separator_tabs_as_spaces(text);
  if (spaced) text = *spaced;
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
  YamlEventParser created(text, std::move(diag), std::move(parser), repairs);
  created.repaired_ = std::move(spaced);
  return created;
}

fy_event* YamlEventParser::next() {
  for (;;) {
    fy_event* event = fy_parser_parse(parser_.get());
    if (!event && repairs_ && !failure_ && restart_with_empty_entries()) continue;
    if (!event || !repairs_) return event;
    const std::optional<EmptyBlockScalar> misread = watch_.follow(text_, event);
    if (!misread) {
      ++given_;
      return event;
    }
    release(event);
    if (!restart_repaired(*misread)) return nullptr;
  }
}

// Repairs every misread block scalar of the text at once (those inside the
// lines a misread one swallowed too), so that one restart is the rule.
// Another comes only where the look ahead missed one (it reads swallowed
// lines out of their document: a `!e!` tag handle there fails it).
bool YamlEventParser::restart_repaired(const EmptyBlockScalar& misread) {
  constexpr size_t kMaxRestarts = 8;
  std::optional<std::vector<size_t>> offsets = indentation_indicators_needed(text_);
  if (!offsets || ++restarts_ > kMaxRestarts) {
    const LineColumn at = line_column(text_, misread.indicator_end - 1);
    failure_ = SyntaxError{{static_cast<uint32_t>(at.line), static_cast<uint32_t>(at.column)},
                           "block scalars with no content nested too deeply to read"};
    return false;
  }
  if (!std::binary_search(offsets->begin(), offsets->end(), misread.indicator_end)) {
    offsets->insert(std::lower_bound(offsets->begin(), offsets->end(), misread.indicator_end), misread.indicator_end);
  }
  return reopen(std::make_unique<std::string>(with_insertions(text_, *offsets, "1")));
}

bool YamlEventParser::restart_with_empty_entries() {
  const auto error = outcome();
  if (error.ok() || error.error().message != "did not find expected node content" || error.error().where.line == 0 ||
      empty_entry_restarts_ >= 2) {
    return false;
  }
  // The scanner alone reads the text right; the parser is what fails.
  auto scanning = create(text_, false);
  if (!scanning) return false;
  fy_parser* scanner = scanning->parser_.get();
  const uint32_t error_line = error.error().where.line - 1;  // as marks count
  std::vector<size_t> dash_ends;
  bool failed_after_empty_entry = false;
  const fy_mark* open_dash = nullptr;  // a block entry with nothing after it on its line, yet
  fy_token* open_token = nullptr;
  const auto close_entry = [&](const fy_mark* next) {
    if (!open_token) return;
    const fy_mark* dash_end = fy_token_end_mark(open_token);
    // Nothing but spaces or a comment after the dash (a block scalar's token
    // is marked where its content starts, so the text says it), and nothing
    // indented under it: kubectl refuses a tab there.
    size_t at = dash_end->input_pos;
    while (at < text_.size() && text_[at] == ' ') ++at;
    const bool bare_line = at == text_.size() || line_break_length(text_, at) != 0 || text_[at] == '#';
    const bool nothing_under = !next || (next->line > open_dash->line && next->column <= open_dash->column);
    if (bare_line && nothing_under) {
      dash_ends.push_back(dash_end->input_pos);
      const auto line = [](const fy_mark* mark) { return static_cast<uint32_t>(mark->line); };
      if (line(open_dash) < error_line && (!next || line(next) >= error_line)) failed_after_empty_entry = true;
    }
    fy_scan_token_free(scanner, open_token);
    open_token = nullptr;
  };
  while (fy_token* token = fy_scan(scanner)) {
    const fy_token_type type = fy_token_get_type(token);
    // Implied ends of collections say nothing of where the next content is,
    // and a simple key's token is marked where the key ends.
    if (type == FYTT_BLOCK_END || type == FYTT_KEY) {
      fy_scan_token_free(scanner, token);
      continue;
    }
    const fy_mark* start = fy_token_start_mark(token);
    if (type == FYTT_STREAM_END) {
      close_entry(nullptr);
      fy_scan_token_free(scanner, token);
      break;
    }
    close_entry(start);
    if (type == FYTT_BLOCK_ENTRY) {
      open_token = token;
      open_dash = start;
    } else {
      fy_scan_token_free(scanner, token);
    }
  }
  if (fy_parser_get_stream_error(scanner)) {
    // Where the scanner stops, nothing says what follows an open entry.
    if (open_token) fy_scan_token_free(scanner, open_token);
  } else {
    close_entry(nullptr);
  }
  if (!failed_after_empty_entry) return false;
  ++empty_entry_restarts_;
  return reopen(std::make_unique<std::string>(with_insertions(text_, dash_ends, " ~")));
}

bool YamlEventParser::reopen(std::unique_ptr<std::string> repaired) {
  auto reopened = create(*repaired, false);
  if (!reopened) {
    failure_ = std::move(reopened).error();
    return false;
  }
  parser_ = std::move(reopened->parser_);  // before the text it reads goes
  diag_ = std::move(reopened->diag_);
  // The parser reads the text create made its own when it made tabs spaces.
  repaired_ = reopened->repaired_ ? std::move(reopened->repaired_) : std::move(repaired);
  text_ = *repaired_;
  watch_ = EmptyBlockScalarWatch();
  // The text before the first repair is unchanged, and so are its events.
  for (size_t i = 0; i < given_; ++i) {
    fy_event* event = fy_parser_parse(parser_.get());
    if (!event) break;
    watch_.follow(text_, event);
    release(event);
  }
  return true;
}

void YamlEventParser::release(fy_event* event) { fy_parser_event_free(parser_.get(), event); }

// fy_token_get_text is only called where it formats nothing. Where it
// formats (folded lines, escapes, block scalars), libfyaml 0.7.12 copies its
// formatter's output into a buffer of the length its scanner counted; where
// the formatter writes more (CR LF before a closing quote, a run of escaped
// quotes) it returns early without freeing the formatter's chunk array, 512
// bytes and up per scalar, and where it writes less the rest of the buffer
// is left uninitialised.
std::string_view YamlEventParser::scalar_text(fy_token* value) {
  if (!value) return "";  // an empty node (`k:`) has no token
  const fy_scalar_style style = fy_token_scalar_style(value);
  const std::string_view source = source_of(text_, value);
  if (reads_as_written(style, source)) return token_text(value);
  scalar_buffer_.clear();
  // The formatter makes a run of n escaped quotes 2n - 1 quotes; kubectl reads n.
  if (style == FYSS_SINGLE_QUOTED && source.find("''''") != std::string_view::npos) {
    append_single_quoted(source, scalar_buffer_);
  } else {
    append_formatted(value, scalar_buffer_);
  }
  return scalar_buffer_;
}

Result<Ok, SyntaxError> YamlEventParser::outcome() const {
  if (failure_) return *failure_;
  if (!fy_parser_get_stream_error(parser_.get())) return Ok{};
  void* iterator = nullptr;
  while (fy_diag_error* err = fy_diag_errors_iterate(diag_.get(), &iterator)) {
    if (err->type >= FYET_ERROR) {
      // Unlike marks, collected diagnostics count from 1.
      return SyntaxError{Position{static_cast<uint32_t>(err->line), static_cast<uint32_t>(err->column)},
                         err->msg ? err->msg : "invalid YAML"};
    }
  }
  if (auto version = unsupported_version_directive(text_)) return *std::move(version);
  return SyntaxError{{}, "invalid YAML"};
}

}  // namespace sindri::yaml_detail
