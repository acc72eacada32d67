// libfyaml 0.7.12 crashes on `? k:\t|`: inside a complex key, after the `:`
// of a simple key, it refuses a tab before an indicator ("cannot use tab for
// indentation of block entry") once it has recycled the key's record, then
// frees that record a second time when the parser is destroyed. Any broker
// request holding such YAML would take the broker down. A tab there is only
// whitespace between two tokens, so a space in its place means the same;
// the parser reads the text with those tabs made spaces, and with the same
// lines, columns and offsets.

#include <libfyaml.h>

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

#include "value/yaml/events.hpp"

namespace sindri::yaml_detail {

namespace {

// Every tab in the run of blanks after a `:` that an indicator libfyaml
// checks ends (? : | >, or `-` whatever follows it: with YAML 1.1 line
// breaks NEL, LS and PS end an entry's dash too): a superset of those it
// refuses.
std::vector<size_t> tabs_before_indicators(std::string_view text) {
  std::vector<size_t> tabs;
  if (text.find('\t') == std::string_view::npos) return tabs;
  for (size_t colon = text.find(':'); colon != std::string_view::npos; colon = text.find(':', colon + 1)) {
    size_t at = colon + 1;
    const size_t run_start = at;
    bool has_tab = false;
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) has_tab = text[at++] == '\t' || has_tab;
    if (!has_tab || at >= text.size()) continue;
    const char next = text[at];
    if (next != '?' && next != ':' && next != '|' && next != '>' && next != '-') continue;
    for (size_t i = run_start; i < at; ++i) {
      if (text[i] == '\t') tabs.push_back(i);
    }
  }
  return tabs;
}

}  // namespace

std::unique_ptr<std::string> YamlEventParser::with_separator_tabs_as_spaces(std::string_view text) {
  const std::vector<size_t> tabs = tabs_before_indicators(text);
  if (tabs.empty()) return nullptr;
  auto spaced = std::make_unique<std::string>(text);
  for (const size_t tab : tabs) (*spaced)[tab] = ' ';
  // A tab inside a quoted or block scalar is content: the scanner, reading
  // the text with every such tab a space, says where the scalars are.
  std::vector<std::pair<size_t, size_t>> scalars;
  if (auto scanning = create(*spaced, false)) {
    fy_parser* scanner = scanning->parser_.get();
    while (fy_token* token = fy_scan(scanner)) {
      const fy_token_type type = fy_token_get_type(token);
      if (type == FYTT_SCALAR) {
        scalars.emplace_back(fy_token_start_mark(token)->input_pos, fy_token_end_mark(token)->input_pos);
      }
      fy_scan_token_free(scanner, token);
      if (type == FYTT_STREAM_END) break;
    }
  }
  // Scalars do not overlap: the last one starting at or before a tab is the
  // only one that may hold it.
  std::sort(scalars.begin(), scalars.end());
  bool replaced = false;
  for (const size_t tab : tabs) {
    auto after = std::upper_bound(scalars.begin(), scalars.end(), tab,
                                  [](size_t offset, const auto& scalar) { return offset < scalar.first; });
    const bool in_scalar = after != scalars.begin() && tab < std::prev(after)->second;
    if (in_scalar) {
      (*spaced)[tab] = '\t';
    } else {
      replaced = true;
    }
  }
  return replaced ? std::move(spaced) : nullptr;
}

}  // namespace sindri::yaml_detail
