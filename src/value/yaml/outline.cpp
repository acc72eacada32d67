// The outline from libfyaml's events. The walk keeps one frame per open
// collection and, of nested content, only hashes of mapping keys: enough to
// rule out the duplicate keys parse_yaml_stream rejects (a hash collision
// costs a fallback, never a wrong answer). Whatever else could make
// parse_yaml_stream fail or change a key (see reader.cpp) stops the walk,
// and parse_yaml_stream decides.

#include "value/yaml/outline.hpp"

#include <libfyaml.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "value/yaml/events.hpp"
#include "value/yaml/outline_top.hpp"
#include "value/yaml/scalar.hpp"

namespace sindri {
namespace {

using yaml_detail::Position;
using yaml_detail::ResolvedScalar;
using yaml_detail::SyntaxError;
using yaml_detail::YamlEventParser;

struct Frame {
  bool is_mapping = false;
  bool awaits_key = false;  // a mapping whose next node is a key
  size_t first_key = 0;     // where this mapping's key hashes start
};

class OutlineWalk {
 public:
  explicit OutlineWalk(std::span<const std::string_view> keys) : top_(keys) {}

  std::optional<YamlOutlines> walk(std::string_view text) {
    auto parser = YamlEventParser::open(text);
    if (!parser) return error_at(parser.error());
    while (fy_event* event = parser->next()) {
      bool decided = follow(event, *parser);
      parser->release(event);
      if (!decided) return std::nullopt;
    }
    auto outcome = parser->outcome();
    if (!outcome) return error_at(outcome.error());
    return std::move(outlines_);
  }

 private:
  YamlOutlines error_at(const SyntaxError& error) const {
    return YamlError{{}, outlines_.empty() ? error.document : outlines_.size() - 1, error.where.line, error.where.column,
                     error.message};
  }

  // False where the walk cannot decide.
  bool follow(fy_event* event, YamlEventParser& parser) {
    switch (event->type) {
      case FYET_DOCUMENT_START:
        outlines_.emplace_back();
        outlines_.back().line = yaml_detail::position_of(fy_event_start_mark(event)).line;
        top_.start_document();
        return true;
      case FYET_MAPPING_START:
        return open(event, true, event->mapping_start.anchor || event->mapping_start.tag);
      case FYET_SEQUENCE_START:
        return open(event, false, event->sequence_start.anchor || event->sequence_start.tag);
      case FYET_MAPPING_END:
        return close_mapping();
      case FYET_SEQUENCE_END:
        stack_.pop_back();
        if (stack_.empty()) outlines_.back().top = Value(Array{});
        return true;
      case FYET_SCALAR:
        return scalar(event, parser);
      case FYET_ALIAS:
        return false;
      default:
        return true;
    }
  }

  bool in_key_slot() const { return !stack_.empty() && stack_.back().is_mapping && stack_.back().awaits_key; }

  // An implicit document starts where its first node does.
  void start_node(fy_event* event) {
    if (stack_.empty() && outlines_.back().line == 0) {
      outlines_.back().line = yaml_detail::position_of(fy_event_start_mark(event)).line;
    }
  }

  // A node in a value slot: the root, an item, or a mapping member's value.
  void place(std::optional<Value> value) {
    if (stack_.empty()) {
      if (value) outlines_.back().top = std::move(*value);
      return;
    }
    if (!stack_.back().is_mapping) return;
    stack_.back().awaits_key = true;
    if (top_.awaiting()) top_.value(std::move(*value));
  }

  bool wants_value() const { return stack_.empty() || top_.awaiting(); }

  bool open(fy_event* event, bool is_mapping, bool anchored_or_tagged) {
    if (anchored_or_tagged || in_key_slot() || stack_.size() >= YamlOptions{}.max_depth) return false;
    start_node(event);
    if (!stack_.empty()) place(wants_value() ? std::optional(is_mapping ? Value(Object{}) : Value(Array{})) : std::nullopt);
    stack_.push_back(Frame{is_mapping, true, key_hashes_.size()});
    return true;
  }

  bool close_mapping() {
    auto first = key_hashes_.begin() + static_cast<std::ptrdiff_t>(stack_.back().first_key);
    std::sort(first, key_hashes_.end());
    if (std::adjacent_find(first, key_hashes_.end()) != key_hashes_.end()) return false;
    key_hashes_.erase(first, key_hashes_.end());
    stack_.pop_back();
    if (stack_.empty()) outlines_.back().top = top_.top();
    return true;
  }

  bool scalar(fy_event* event, YamlEventParser& parser) {
    if (event->scalar.anchor || event->scalar.tag) return false;
    start_node(event);
    std::string_view text = parser.scalar_text(event->scalar.value);
    bool plain = fy_token_scalar_style(event->scalar.value) == FYSS_PLAIN;
    ResolvedScalar resolved = plain ? yaml_detail::resolve_plain(text) : ResolvedScalar{};
    bool is_text = resolved.type == ResolvedScalar::Type::String || resolved.type == ResolvedScalar::Type::Timestamp;
    if (in_key_slot()) {
      // Keys that are not their own text (`yes`, `0755`, `~`) or merge (`<<`).
      if (!is_text || (plain && text == "<<")) return false;
      key_hashes_.push_back(std::hash<std::string_view>{}(text));
      stack_.back().awaits_key = false;
      if (stack_.size() == 1) top_.key(text);
      return true;
    }
    if (resolved.type == ResolvedScalar::Type::Float && !std::isfinite(resolved.floating)) return false;
    place(wants_value() ? yaml_detail::json_value_of(resolved, text) : std::nullopt);
    return true;
  }

  std::vector<YamlDocumentOutline> outlines_;
  std::vector<Frame> stack_;
  std::vector<size_t> key_hashes_;  // of every open mapping, innermost last
  yaml_detail::TopLevelKeys top_;
};

// A value cut down as YamlDocumentOutline::top describes.
Value outline_of(const Value& value, std::span<const std::string_view> keys) {
  if (value.is_array()) return Value(Array{});
  if (!value.is_object()) return value;
  Object members;
  for (const Member& member : value.get_object()) {
    if (std::find(keys.begin(), keys.end(), member.key.get_string()) == keys.end()) continue;
    const Value& v = member.value;
    members.push_back(Member{member.key, v.is_object() ? Value(Object{}) : v.is_array() ? Value(Array{}) : v});
  }
  return Value(std::move(members));
}

}  // namespace

std::optional<YamlOutlines> outline_yaml_stream_by_events(std::string_view text,
                                                          std::span<const std::string_view> top_level_keys) {
  return OutlineWalk(top_level_keys).walk(text);
}

YamlOutlines outline_yaml_stream(std::string_view text, std::span<const std::string_view> top_level_keys) {
  if (auto outlines = outline_block_yaml(text, top_level_keys)) return std::move(*outlines);
  if (auto outlines = outline_yaml_stream_by_events(text, top_level_keys)) return std::move(*outlines);
  SINDRI_TRY(documents, parse_yaml_stream(text));
  std::vector<YamlDocumentOutline> outlines;
  outlines.reserve(documents.size());
  for (const YamlDocument& document : documents) {
    outlines.push_back(YamlDocumentOutline{document.line, outline_of(document.value, top_level_keys)});
  }
  return outlines;
}

}  // namespace sindri
