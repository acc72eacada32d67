#include "value/yaml/libfyaml/block_indent.hpp"

#include <libfyaml.h>

#include <algorithm>

#include "value/yaml/events.hpp"

namespace sindri::yaml_detail {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }
bool is_break(char c) { return c == '\n' || c == '\r'; }

size_t leading_spaces(std::string_view text, size_t at) {
  size_t end = at;
  while (end < text.size() && text[end] == ' ') ++end;
  return end - at;
}

size_t next_line(std::string_view text, size_t at) {
  while (at < text.size() && !is_break(text[at])) ++at;
  if (at < text.size() && text[at] == '\r') ++at;
  if (at < text.size() && text[at] == '\n') ++at;
  return at;
}

// Where the header's `|` or `>` is, between `from` (the end of what libfyaml
// read before on the header's line: a key, a tag, an anchor, or the line's
// start) and its line break; only blanks, the indicators `-`, `?`, `:` and
// the closing quote of a quoted key (libfyaml ends a quoted scalar at its
// quote) may come between. nullopt where the text does not read so.
std::optional<size_t> indicator_at(std::string_view text, size_t from, size_t line_end) {
  size_t at = from;
  if (at < line_end && (text[at] == '"' || text[at] == '\'')) ++at;
  while (at < line_end) {
    const bool indicator = (text[at] == '-' || text[at] == '?' || text[at] == ':') &&
                           (at + 1 == line_end || is_blank(text[at + 1]));
    if (!is_blank(text[at]) && !indicator) break;
    ++at;
  }
  if (at == line_end || (text[at] != '|' && text[at] != '>')) return std::nullopt;
  return at;
}

// An indentation indicator in the header: `[1-9][-+]?` or `[-+][1-9]`.
bool has_indentation_indicator(std::string_view text, size_t indicator) {
  const auto digit_at = [&](size_t at) { return at < text.size() && text[at] >= '1' && text[at] <= '9'; };
  const size_t next = indicator + 1;
  return digit_at(next) || (next < text.size() && (text[next] == '-' || text[next] == '+') && digit_at(next + 1));
}

// libfyaml's auto-detected indentation takes the widest of the blank lines
// after the header and the first line with content; it misreads when that
// is the parent's own column and the line with content is there.
bool content_at_parent_column(std::string_view text, size_t body, uint32_t parent_column) {
  for (size_t at = body; at < text.size(); at = next_line(text, at)) {
    const size_t spaces = leading_spaces(text, at);
    if (spaces > parent_column) return false;
    if (at + spaces == text.size()) return false;
    if (!is_break(text[at + spaces])) return spaces == parent_column;
  }
  return false;
}

// Where the lines libfyaml takes as the scalar's content end: at the first
// line with content indented less than the parent.
size_t region_end(std::string_view text, size_t body, uint32_t parent_column) {
  size_t at = body;
  while (at < text.size()) {
    const size_t spaces = leading_spaces(text, at);
    if (at + spaces < text.size() && !is_break(text[at + spaces]) && spaces < parent_column) break;
    at = next_line(text, at);
  }
  return at;
}

size_t end_of(fy_token* token) { return token ? fy_token_end_mark(token)->input_pos : 0; }

std::optional<EmptyBlockScalar> empty_block_scalar(std::string_view text, fy_event* event, uint32_t parent_column,
                                                   size_t previous_end) {
  fy_token* value = event->scalar.value;
  if (!value) return std::nullopt;
  const fy_scalar_style style = fy_token_scalar_style(value);
  if (style != FYSS_LITERAL && style != FYSS_FOLDED) return std::nullopt;
  // libfyaml starts the scalar's token on the line after its header.
  const size_t body = fy_token_start_mark(value)->input_pos;
  if (body == 0 || body > text.size() || !is_break(text[body - 1])) return std::nullopt;
  size_t line_end = body - 1;
  if (line_end > 0 && text[line_end] == '\n' && text[line_end - 1] == '\r') --line_end;
  const size_t line_start = line_end == 0 ? 0 : text.find_last_of("\r\n", line_end - 1) + 1;
  const size_t from = std::max({line_start, previous_end, end_of(event->scalar.tag), end_of(event->scalar.anchor)});
  if (from > line_end) return std::nullopt;
  const std::optional<size_t> indicator = indicator_at(text, from, line_end);
  if (!indicator || has_indentation_indicator(text, *indicator)) return std::nullopt;
  if (!content_at_parent_column(text, body, parent_column)) return std::nullopt;
  return EmptyBlockScalar{*indicator + 1, body, region_end(text, body, parent_column), parent_column};
}

// A text and where its lines come from in the whole text: the whole text
// itself, or the lines a misread scalar swallowed moved left to column 0.
class Piece {
 public:
  explicit Piece(std::string_view whole) : whole_(whole) {}

  // The swallowed lines of `scalar`, less the parent's indentation, so that
  // the parent's entries stand at the top level, where libfyaml reads block
  // scalars right. A `---` or `...` moved to column 0 would end a document
  // there, so it becomes another plain scalar of the same length.
  static Piece swallowed_by(const Piece& outer, const EmptyBlockScalar& scalar) {
    Piece piece{{}};
    const std::string_view text = outer.text();
    for (size_t at = scalar.body; at < scalar.region_end;) {
      const size_t end = next_line(text, at);
      const size_t cut = std::min<size_t>(leading_spaces(text, at), scalar.parent_column);
      piece.lines_.push_back({piece.owned_.size(), outer.in_whole(at + cut)});
      const std::string_view line = text.substr(at + cut, end - at - cut);
      const bool marker = (line.starts_with("---") || line.starts_with("...")) &&
                          (line.size() == 3 || is_blank(line[3]) || is_break(line[3]));
      piece.owned_ += line;
      if (marker) piece.owned_[piece.lines_.back().start + 1] = 'x';
      at = end;
    }
    return piece;
  }

  std::string_view text() const { return lines_.empty() ? whole_ : std::string_view(owned_); }

  size_t in_whole(size_t offset) const {
    if (lines_.empty()) return offset;
    auto line = std::upper_bound(lines_.begin(), lines_.end(), offset,
                                 [](size_t at, const Line& l) { return at < l.start; });
    --line;
    return line->origin + (offset - line->start);
  }

 private:
  struct Line {
    size_t start;   // in owned_
    size_t origin;  // in the whole text
  };
  std::string_view whole_;
  std::string owned_;
  std::vector<Line> lines_;
};

bool collect(const Piece& piece, bool nested, size_t depth, std::vector<size_t>& offsets) {
  auto parser = YamlEventParser::open_unrepaired(piece.text());
  if (!parser) return true;  // nothing to learn where libfyaml reads nothing
  EmptyBlockScalarWatch watch(nested);
  while (fy_event* event = parser->next()) {
    const std::optional<EmptyBlockScalar> found = watch.follow(piece.text(), event);
    parser->release(event);
    if (!found) continue;
    offsets.push_back(piece.in_whole(found->indicator_end));
    if (found->parent_column == 0) continue;  // read right here: nothing was swallowed
    if (depth == kMaxEmptyBlockScalarNesting) return false;
    if (!collect(Piece::swallowed_by(piece, *found), true, depth + 1, offsets)) return false;
  }
  return true;
}

}  // namespace

std::optional<EmptyBlockScalar> EmptyBlockScalarWatch::follow(std::string_view text, fy_event* event) {
  std::optional<EmptyBlockScalar> found;
  switch (event->type) {
    case FYET_MAPPING_START:
    case FYET_SEQUENCE_START: {
      const fy_mark* start = fy_event_start_mark(event);
      const bool block = start && fy_event_get_node_style(event) != FYNS_FLOW;
      open_columns_.push_back(block ? static_cast<uint32_t>(start->column) : kFlow);
      break;
    }
    case FYET_MAPPING_END:
    case FYET_SEQUENCE_END:
      if (!open_columns_.empty()) open_columns_.pop_back();
      break;
    case FYET_SCALAR:
      // At the top level of the whole text libfyaml's least indentation, 1, is right.
      if (!open_columns_.empty() && open_columns_.back() != kFlow && (nested_ || open_columns_.back() > 0)) {
        found = empty_block_scalar(text, event, open_columns_.back(), previous_end_);
      }
      if (event->scalar.value) previous_end_ = end_of(event->scalar.value);
      break;
    case FYET_ALIAS:
      previous_end_ = end_of(event->alias.anchor);
      break;
    default:
      break;
  }
  return found;
}

std::optional<std::vector<size_t>> indentation_indicators_needed(std::string_view text) {
  std::vector<size_t> offsets;
  if (!collect(Piece(text), false, 0, offsets)) return std::nullopt;
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  return offsets;
}

std::string with_insertions(std::string_view text, const std::vector<size_t>& offsets, std::string_view insertion) {
  std::string out;
  out.reserve(text.size() + offsets.size() * insertion.size());
  size_t copied = 0;
  for (size_t offset : offsets) {
    out.append(text, copied, offset - copied);
    out += insertion;
    copied = offset;
  }
  out.append(text, copied);
  return out;
}

}  // namespace sindri::yaml_detail
