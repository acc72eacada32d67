#include "repo/project_edit.hpp"

#include <algorithm>
#include <cctype>

#include "repo/problems.hpp"
#include "repo/sync.hpp"
#include "value/file_text.hpp"
#include "value/pointer.hpp"
#include "value/yaml/scalar.hpp"

namespace sindri::repo {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kSourcesKey = "template_sources";
constexpr size_t kNone = static_cast<size_t>(-1);

std::string numbered(const std::vector<ListedSource>& listed) {
  std::string out;
  for (size_t i = 0; i < listed.size(); ++i) {
    out += (i == 0 ? "" : ", ") + std::to_string(i + 1) + ": " + listed[i].describe();
  }
  return out;
}

// ---- Scalars as YAML text ----

// Plain only where no reader could take it for anything but this string, in
// a block or a flow collection alike; everything else is double-quoted.
bool plain_is_safe(std::string_view text) {
  if (text.empty()) return false;
  const auto allowed = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("/._-+~@=:%").find(c) != std::string_view::npos;
  };
  if (!std::all_of(text.begin(), text.end(), allowed)) return false;
  if (std::string_view("-:%@=").find(text.front()) != std::string_view::npos || text.back() == ':') return false;
  return yaml_detail::resolve_plain(text).type == yaml_detail::ResolvedScalar::Type::String;
}

std::string yaml_scalar(std::string_view text) {
  if (plain_is_safe(text)) return std::string(text);
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "\"";
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const auto byte = static_cast<unsigned char>(c);
    // YAML breaks lines at NEL, LS and PS (U+0085, U+2028, U+2029) too, and
    // allows no other C1 control or byte order mark unescaped.
    const std::string_view rest = text.substr(i);
    if (rest.starts_with("\xC2\x85") || rest.starts_with("\xE2\x80\xA8") || rest.starts_with("\xE2\x80\xA9")) {
      out += rest[0] == '\xC2' ? "\\N" : rest[2] == '\xA8' ? "\\L" : "\\P";
      i += rest[0] == '\xC2' ? 1 : 2;
      continue;
    }
    if (rest.size() >= 2 && byte == 0xC2 && (static_cast<unsigned char>(rest[1]) & 0xE0) == 0x80) {
      const auto control = static_cast<unsigned char>(rest[1]);
      out += "\\x";
      out += kHex[control >> 4];
      out += kHex[control & 0xf];
      ++i;
      continue;
    }
    if (rest.starts_with("\xEF\xBB\xBF")) {
      out += "\\uFEFF";
      i += 2;
      continue;
    }
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// The `key: value` pairs of a new mapping entry, in the order a reader expects.
std::vector<std::string> entry_fields(const NewSource& source) {
  std::vector<std::string> fields = {std::string("type: ") + source_type_name(source.type),
                                     "location: " + yaml_scalar(source.location)};
  if (!source.ref.empty()) fields.push_back("ref: " + yaml_scalar(source.ref));
  if (source.trusted) fields.push_back(std::string("trusted: ") + (*source.trusted ? "true" : "false"));
  return fields;
}

std::string flow_entry(const NewSource& source) {
  if (source.type == SourceSpec::Type::Default) return "default";
  std::string out = "{";
  for (const std::string& field : entry_fields(source)) out += (out.size() == 1 ? "" : ", ") + field;
  return out + "}";
}

// How the items of a block sequence are laid out: the column of their `-`
// and how far past it a mapping item's keys start.
struct BlockStyle {
  size_t dash_column = 0;     // 0-based
  size_t content_offset = 2;  // `- type:` is 2
};

std::string block_entry(const NewSource& source, const BlockStyle& style, std::string_view newline);

// The entries written where the list is empty, one after the other.
std::string block_entries(const std::vector<NewSource>& sources, const BlockStyle& style, std::string_view newline) {
  std::string out;
  for (const NewSource& source : sources) out += block_entry(source, style, newline);
  return out;
}

std::string flow_entries(const std::vector<NewSource>& sources) {
  std::string out;
  for (const NewSource& source : sources) out += (out.empty() ? "" : ", ") + flow_entry(source);
  return out;
}

std::string block_entry(const NewSource& source, const BlockStyle& style, std::string_view newline) {
  const std::string indent(style.dash_column, ' ');
  if (source.type == SourceSpec::Type::Default) return indent + "- default" + std::string(newline);
  std::string out;
  for (const std::string& field : entry_fields(source)) {
    out += indent + (out.empty() ? "-" + std::string(style.content_offset - 1, ' ') : std::string(style.content_offset, ' ')) +
           field + std::string(newline);
  }
  return out;
}

// ---- The text, by lines ----

class TextLines {
 public:
  explicit TextLines(std::string_view text) : text_(text) {
    starts_.push_back(0);
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n') starts_.push_back(i + 1);
    }
  }
  std::string_view text() const { return text_; }
  size_t count() const { return starts_.size(); }
  size_t begin(size_t line) const { return starts_[line]; }
  // Past the line's newline (the end of the text for the last line).
  size_t end(size_t line) const { return line + 1 < starts_.size() ? starts_[line + 1] : text_.size(); }
  std::string_view content(size_t line) const {
    std::string_view out = text_.substr(begin(line), end(line) - begin(line));
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.remove_suffix(1);
    return out;
  }
  size_t indent(size_t line) const {
    const std::string_view c = content(line);
    return std::min(c.find_first_not_of(' '), c.size());
  }
  bool blank_or_comment(size_t line) const {
    const std::string_view c = content(line);
    const size_t first = c.find_first_not_of(" \t");
    return first == std::string_view::npos || c[first] == '#';
  }
  // 0-based line holding `offset`.
  size_t line_of(size_t offset) const {
    return static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), offset) - starts_.begin()) - 1;
  }
  size_t offset(const YamlPosition& position) const { return begin(position.line - 1) + position.column - 1; }
  std::string newline() const { return text_.find("\r\n") == std::string_view::npos ? "\n" : "\r\n"; }

 private:
  std::string_view text_;
  std::vector<size_t> starts_;
};

// One change to the text: `erase` bytes at `at` replaced by `insert`.
struct Splice {
  size_t at = 0;
  size_t erase = 0;
  std::string insert;
};

std::string applied(std::string_view text, std::vector<Splice> splices) {
  std::sort(splices.begin(), splices.end(), [](const Splice& a, const Splice& b) { return a.at > b.at; });
  std::string out(text);
  for (const Splice& s : splices) out.replace(s.at, s.erase, s.insert);
  return out;
}

// Inserting whole lines after `line`, which may be the last one and lack its newline.
Splice after_line(const TextLines& lines, size_t line, std::string text) {
  const size_t at = lines.end(line);
  const std::string_view all = lines.text();
  if (at == all.size() && !all.empty() && all.back() != '\n') text = lines.newline() + text;
  return Splice{at, 0, std::move(text)};
}

// ---- Where `template_sources` is written ----

struct Places {
  const Project& project;
  const TextLines& lines;
  std::string root_pointer;
  std::string sources_pointer;

  // A node without a position of its own (an empty value) has none here.
  const YamlPosition* position(std::string_view pointer) const {
    const YamlPosition* at = project.file.document.position_of(pointer);
    return at && at->line > 0 ? at : nullptr;
  }
  const Value* sources() const {
    const Value* root = project.file.value().find(project.root_key);
    return root ? root->find(kSourcesKey) : nullptr;
  }
  Error cannot(std::string_view pointer, std::string_view why) const {
    return make_error(project.file.where(pointer) + ": cannot edit `template_sources` here: " + std::string(why) +
                      "; edit the file by hand");
  }
  // The 0-based column of the root mapping's keys, which must be a block mapping.
  Result<size_t> child_indent() const {
    const YamlPosition* at = position(root_pointer);
    if (at == nullptr || lines.text()[lines.offset(*at)] == '{') {
      return cannot(root_pointer, "`" + project.root_key + "` is not a block mapping");
    }
    return size_t{at->column - 1};
  }
};

// The line of the `template_sources:` key, found among the root mapping's keys.
Result<size_t> key_line(const Places& places, size_t indent) {
  const TextLines& lines = places.lines;
  const size_t first = places.position(places.root_pointer)->line - 1;
  for (size_t line = first; line < lines.count(); ++line) {
    if (lines.blank_or_comment(line)) continue;
    if (lines.indent(line) < indent) break;
    const std::string_view c = lines.content(line).substr(lines.indent(line));
    if (lines.indent(line) == indent && c.starts_with(kSourcesKey) && c.substr(kSourcesKey.size()).starts_with(":")) {
      return line;
    }
  }
  return places.cannot(places.sources_pointer, "its key is not written plainly as `template_sources:`");
}

struct FlowSequence {
  size_t open = 0;
  size_t close = 0;
  std::vector<std::pair<size_t, size_t>> elements;  // [begin, end) of each element's text
};

// The elements of the flow sequence opening at `open`, skipping quoted text,
// nested collections and comments.
Result<FlowSequence> scan_flow(const Places& places, size_t open) {
  const std::string_view text = places.lines.text();
  FlowSequence flow{.open = open, .close = kNone, .elements = {}};
  size_t depth = 0, element_begin = kNone, element_end = kNone;
  const auto finish = [&] {
    if (element_begin != kNone) flow.elements.emplace_back(element_begin, element_end);
    element_begin = kNone;
  };
  for (size_t i = open + 1; i < text.size() && flow.close == kNone; ++i) {
    const char c = text[i];
    const bool token_start = std::string_view(" \t\r\n[{,:").find(text[i - 1]) != std::string_view::npos;
    size_t token_end = i + 1;
    if (c == '#' && std::string_view(" \t\r\n").find(text[i - 1]) != std::string_view::npos) {
      i = std::min(text.find('\n', i), text.size());
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
    if ((c == '"' || c == '\'') && token_start) {
      size_t j = i + 1;
      for (; j < text.size(); ++j) {
        if (c == '"' && text[j] == '\\') {
          ++j;
        } else if (text[j] == c && c == '\'' && j + 1 < text.size() && text[j + 1] == '\'') {
          ++j;  // '' is a quote inside single quotes
        } else if (text[j] == c) {
          break;
        }
      }
      if (j >= text.size()) break;
      token_end = j + 1;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == ']') {
      finish();
      flow.close = i;
      continue;
    } else if (c == ',' && depth == 0) {
      finish();
      continue;
    }
    if (element_begin == kNone) element_begin = i;
    element_end = token_end;
    i = token_end - 1;
  }
  const Value* sources = places.sources();
  if (flow.close == kNone || flow.elements.size() != sources->size()) {
    return places.cannot(places.sources_pointer, "its flow sequence could not be followed");
  }
  return flow;
}

// The lines of each item of a block sequence, and its layout.
struct BlockSequence {
  BlockStyle style;
  std::vector<std::pair<size_t, size_t>> items;  // first and last line of each (0-based)
};

Result<BlockSequence> scan_block(const Places& places, size_t dash_column) {
  const TextLines& lines = places.lines;
  const std::string_view text = lines.text();
  const Value* sources = places.sources();
  BlockSequence block;
  block.style.dash_column = dash_column;
  std::vector<size_t> dash_lines;
  for (size_t i = 0; i < sources->size(); ++i) {
    const std::string pointer = pointer_child(places.sources_pointer, std::to_string(i));
    const YamlPosition* at = places.position(pointer);
    if (at == nullptr) return places.cannot(pointer, "this entry has no position");
    const size_t content = lines.offset(*at);
    size_t dash = content;
    while (dash > 0 && std::string_view(" \t\r\n").find(text[dash - 1]) != std::string_view::npos) --dash;
    const size_t line = dash > 0 ? lines.line_of(dash - 1) : 0;
    if (dash == 0 || text[dash - 1] != '-' || dash - 1 != lines.begin(line) + dash_column ||
        lines.indent(line) != dash_column) {
      return places.cannot(pointer, "this entry does not start its own line with `- `");
    }
    if (sources->at(i)->is_object() && lines.line_of(content) == line) {
      block.style.content_offset = content - (dash - 1);
    }
    dash_lines.push_back(line);
  }
  for (size_t i = 0; i < dash_lines.size(); ++i) {
    size_t last = dash_lines[i];
    if (i + 1 < dash_lines.size()) {
      last = dash_lines[i + 1] - 1;
    } else {
      // The last item runs on while lines are indented past its `-`.
      size_t next = dash_lines[i] + 1;
      while (next < lines.count() && (lines.blank_or_comment(next) || lines.indent(next) > dash_column)) ++next;
      last = next - 1;
    }
    while (last > dash_lines[i] && lines.blank_or_comment(last)) --last;
    block.items.emplace_back(dash_lines[i], last);
  }
  return block;
}

enum class Layout { Absent, Empty, Flow, Block };

Result<Layout> layout_of(const Places& places) {
  const Value* sources = places.sources();
  if (sources == nullptr) return Layout::Absent;
  if (sources->is_null()) return Layout::Empty;
  const YamlPosition* at = places.position(places.sources_pointer);
  if (!sources->is_array() || at == nullptr) return places.cannot(places.sources_pointer, "it is not a list");
  const char first = places.lines.text()[places.lines.offset(*at)];
  if (first == '[') return Layout::Flow;
  if (first == '-') return Layout::Block;
  return places.cannot(places.sources_pointer, "it is not a plain block or flow sequence");
}

// `template_sources:` with no value (or `~`, `null`): the value is dropped
// and the entry written as a block sequence under the key.
Result<std::vector<Splice>> fill_empty(const Places& places, const std::vector<NewSource>& sources) {
  SINDRI_TRY(indent, places.child_indent());
  SINDRI_TRY(line, key_line(places, indent));
  const TextLines& lines = places.lines;
  std::vector<Splice> splices;
  if (const YamlPosition* value = places.position(places.sources_pointer)) {
    const size_t colon = lines.begin(line) + indent + kSourcesKey.size();
    const size_t token = lines.offset(*value);
    if (lines.line_of(token) != line) return places.cannot(places.sources_pointer, "its null value is on a line of its own");
    const std::string_view rest = lines.text().substr(token);
    const size_t length = std::min(rest.find_first_of(" \t\r\n#"), rest.size());
    splices.push_back(Splice{colon + 1, token + length - colon - 1, ""});
  }
  splices.push_back(after_line(lines, line, block_entries(sources, BlockStyle{indent + 2, 2}, lines.newline())));
  return splices;
}

// No `template_sources` key: one is written after `version:`, like its siblings.
Result<std::vector<Splice>> add_key(const Places& places, const std::vector<NewSource>& sources) {
  SINDRI_TRY(indent, places.child_indent());
  const std::string version_pointer = pointer_child(places.root_pointer, "version");
  const YamlPosition* version = places.position(version_pointer);
  if (version == nullptr) return places.cannot(places.root_pointer, "it has no `version:` to write it after");
  const TextLines& lines = places.lines;
  const std::string newline = lines.newline();
  return std::vector<Splice>{after_line(lines, version->line - 1,
                                        std::string(indent, ' ') + std::string(kSourcesKey) + ":" + newline +
                                            block_entries(sources, BlockStyle{indent + 2, 2}, newline))};
}

// `sources` holds one source, or where the file lists none, the one added
// and the `default` the project meant until now, in their order.
Result<std::vector<Splice>> add_splices(const Places& places, const std::vector<NewSource>& sources, bool first) {
  SINDRI_TRY(layout, layout_of(places));
  const NewSource& source = first ? sources.front() : sources.back();
  switch (layout) {
    case Layout::Absent:
      return add_key(places, sources);
    case Layout::Empty:
      return fill_empty(places, sources);
    case Layout::Flow: {
      SINDRI_TRY(flow, scan_flow(places, places.lines.offset(*places.position(places.sources_pointer))));
      const std::string entry = flow_entry(source);
      if (flow.elements.empty()) return std::vector<Splice>{{flow.open + 1, 0, flow_entries(sources)}};
      if (first) return std::vector<Splice>{{flow.elements.front().first, 0, entry + ", "}};
      return std::vector<Splice>{{flow.elements.back().second, 0, ", " + entry}};
    }
    case Layout::Block: {
      const YamlPosition* at = places.position(places.sources_pointer);
      SINDRI_TRY(block, scan_block(places, at->column - 1));
      const std::string entry = block_entry(source, block.style, places.lines.newline());
      if (first) return std::vector<Splice>{{places.lines.begin(block.items.front().first), 0, entry}};
      return std::vector<Splice>{after_line(places.lines, block.items.back().second, entry)};
    }
  }
  return std::vector<Splice>{};
}

Result<Splice> remove_splice(const Places& places, size_t index) {
  SINDRI_TRY(layout, layout_of(places));
  const YamlPosition* at = places.position(places.sources_pointer);
  if (layout == Layout::Flow) {
    SINDRI_TRY(flow, scan_flow(places, places.lines.offset(*at)));
    const auto& elements = flow.elements;
    if (elements.size() == 1) return Splice{elements[0].first, elements[0].second - elements[0].first, ""};
    if (index + 1 < elements.size()) return Splice{elements[index].first, elements[index + 1].first - elements[index].first, ""};
    return Splice{elements[index - 1].second, elements[index].second - elements[index - 1].second, ""};
  }
  if (layout == Layout::Block) {
    SINDRI_TRY(block, scan_block(places, at->column - 1));
    const size_t begin = places.lines.begin(block.items[index].first);
    return Splice{begin, places.lines.end(block.items[index].second) - begin, ""};
  }
  return places.cannot(places.sources_pointer, "it lists no sources");
}

// ---- The check after every edit ----

// `/x/templates/` and `/x/templates` are the same directory.
std::string_view without_trailing_slash(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  return path;
}

bool same_source(const SourceSpec& a, const SourceSpec& b) {
  return a.type == b.type && without_trailing_slash(a.location) == without_trailing_slash(b.location) && a.ref == b.ref;
}

std::string described(const std::vector<SourceSpec>& specs) {
  std::string out;
  for (const SourceSpec& spec : specs) out += (out.empty() ? "" : ", ") + spec.describe();
  return "[" + out + "]";
}

std::vector<SourceSpec> specs_of(const std::vector<ListedSource>& listed) {
  std::vector<SourceSpec> out;
  for (const ListedSource& entry : listed) out.push_back(entry.spec);
  return out;
}

// The edited text must parse and list exactly `intended`; otherwise the edit
// went wrong and the file must not be written.
Result<EditedProject> checked(const Project& project, std::string text, const std::vector<SourceSpec>& intended,
                              size_t position) {
  const std::string refusal = project.file.file + ": internal check failed, the file is left unchanged: ";
  auto reparsed = parse_project(text, project.file.file, project.directory, project.root_key);
  if (!reparsed) {
    std::string problems;
    for (const std::string& problem : problems_of(reparsed.error())) problems += (problems.empty() ? "" : "; ") + problem;
    return make_error(refusal + "the edited text does not parse: " + problems);
  }
  const std::vector<SourceSpec> got = specs_of(listed_sources(*reparsed));
  const bool same = got.size() == intended.size() &&
                    std::equal(got.begin(), got.end(), intended.begin(), [](const SourceSpec& a, const SourceSpec& b) {
                      return same_source(a, b) && a.trusted == b.trusted;
                    });
  if (!same) return make_error(refusal + "the edited text lists " + described(got) + " instead of " + described(intended));
  return EditedProject{std::move(text), position};
}

SourceSpec spec_of(const Project& project, const NewSource& source) {
  SourceSpec spec;
  spec.type = source.type;
  spec.location = source.type == SourceSpec::Type::Filesystem
                      ? (project.directory / source.location).lexically_normal().string()
                      : source.location;
  spec.ref = source.ref;
  spec.trusted = source.trusted.value_or(false);
  return spec;
}

Places places_of(const Project& project, const TextLines& lines) {
  const std::string root_pointer = pointer_child("", project.root_key);
  return Places{project, lines, root_pointer, pointer_child(root_pointer, kSourcesKey)};
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::string ListedSource::describe() const {
  if (spec.type == SourceSpec::Type::Default) return "default";
  return std::string(source_type_name(spec.type)) + " " + location + (spec.ref.empty() ? "" : "@" + spec.ref);
}

std::string NewSource::describe() const {
  if (type == SourceSpec::Type::Default) return "default";
  return std::string(source_type_name(type)) + " " + location + (ref.empty() ? "" : "@" + ref);
}

std::vector<ListedSource> listed_sources(const Project& project) {
  const Value* root = project.file.value().is_object() ? project.file.value().find(project.root_key) : nullptr;
  const Value* sources = root && root->is_object() ? root->find(kSourcesKey) : nullptr;
  std::vector<ListedSource> out;
  if (sources == nullptr || !sources->is_array()) return out;
  for (size_t i = 0; i < sources->size() && i < project.sources.size(); ++i) {
    const Value* location = sources->at(i)->is_object() ? sources->at(i)->find("location") : nullptr;
    out.push_back(ListedSource{project.sources[i],
                               location && location->is_string() ? std::string(location->get_string()) : ""});
  }
  return out;
}

Result<NewSource> new_source(std::string_view type, const std::vector<std::string>& arguments) {
  NewSource source;
  std::vector<std::string_view> known;
  if (type == "filesystem") {
    source.type = SourceSpec::Type::Filesystem;
    known = {"location"};
  } else if (type == "git") {
    source.type = SourceSpec::Type::Git;
    known = {"location", "ref", "trusted"};
  } else if (type != "default") {
    return make_error("unknown template source type `" + std::string(type) + "` (known: filesystem, git, default)");
  }
  std::vector<std::string> seen;
  for (const std::string& argument : arguments) {
    const size_t equals = argument.find('=');
    if (equals == std::string::npos) return make_error("`" + argument + "`: expected KEY=VALUE");
    const std::string key = argument.substr(0, equals);
    const std::string value = argument.substr(equals + 1);
    if (source.type == SourceSpec::Type::Default) {
      return make_error("`" + argument + "`: a default source takes no KEY=VALUE arguments");
    }
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      if (source.type == SourceSpec::Type::Filesystem && (key == "ref" || key == "trusted")) {
        return make_error("`" + argument + "`: a filesystem source takes only `location` (`" + key +
                          "` is for git sources)");
      }
      std::string list;
      for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      return make_error("`" + argument + "`: unknown key `" + key + "` for a " + std::string(type) +
                        " source (known: " + list + ")");
    }
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
      return make_error("`" + argument + "`: `" + key + "` is given twice");
    }
    seen.push_back(key);
    if (key == "location") {
      if (value.empty()) return make_error("`" + argument + "`: the location is empty");
      if (source.type == SourceSpec::Type::Git && value.front() == '-') {
        return make_error("`" + argument + "`: a git location cannot start with `-`");
      }
      source.location = value;
    } else if (key == "ref") {
      if (value.empty()) return make_error("`" + argument + "`: the ref is empty (leave it out for the remote's default branch)");
      if (value.front() == '-') return make_error("`" + argument + "`: a ref cannot start with `-`");
      source.ref = value;
    } else if (value == "true" || value == "false") {
      source.trusted = value == "true";
    } else {
      return make_error("`" + argument + "`: `trusted` must be true or false");
    }
  }
  if (source.type != SourceSpec::Type::Default && source.location.empty()) {
    return make_error("a " + std::string(type) + " source needs `location=" +
                      (source.type == SourceSpec::Type::Git ? "URL" : "DIR") + "`");
  }
  return source;
}

Result<size_t> find_listed_source(const Project& project, std::string_view which) {
  const std::vector<ListedSource> listed = listed_sources(project);
  if (listed.empty()) {
    return make_error(project.file.file + " lists no template sources (the project uses `default` implicitly): `" +
                      std::string(which) + "` cannot be removed");
  }
  if (all_digits(which)) {
    const size_t position = which.size() > 6 ? 0 : std::stoul(std::string(which));
    if (position >= 1 && position <= listed.size()) return position - 1;
    return make_error("no template source at position " + std::string(which) + " in " + project.file.file +
                      "; the sources are: " + numbered(listed));
  }
  const std::string resolved = (project.directory / std::string(which)).lexically_normal().string();
  std::vector<size_t> matches;
  for (size_t i = 0; i < listed.size(); ++i) {
    const SourceSpec& spec = listed[i].spec;
    const bool named = spec.type == SourceSpec::Type::Default
                           ? which == "default"
                           : which == listed[i].location || which == listed[i].location + "@" + spec.ref ||
                                 (spec.type == SourceSpec::Type::Filesystem &&
                                  without_trailing_slash(spec.location) == without_trailing_slash(resolved));
    if (named) matches.push_back(i);
  }
  if (matches.size() == 1) return matches.front();
  if (matches.empty()) {
    return make_error("no template source `" + std::string(which) + "` in " + project.file.file +
                      "; the sources are: " + numbered(listed));
  }
  std::string positions;
  for (size_t i : matches) positions += (positions.empty() ? "" : ", ") + std::to_string(i + 1);
  return make_error("`" + std::string(which) + "` names several template sources in " + project.file.file +
                    " (positions " + positions + "): give the position of the one to remove");
}

Result<EditedProject> add_source(const Project& project, std::string_view text, const NewSource& source, bool first) {
  std::vector<SourceSpec> intended = specs_of(listed_sources(project));
  const SourceSpec spec = spec_of(project, source);
  for (size_t i = 0; i < intended.size(); ++i) {
    if (same_source(intended[i], spec)) {
      return make_error("`" + source.describe() + "` is already listed in " + project.file.file + " at position " +
                        std::to_string(i + 1) + " (" + intended[i].where + ")");
    }
  }
  // A file listing no source means `default`: it stays, beside the new one.
  std::vector<NewSource> written = {source};
  if (intended.empty() && source.type != SourceSpec::Type::Default) {
    const NewSource implicit{.type = SourceSpec::Type::Default, .location = {}, .ref = {}, .trusted = std::nullopt};
    written.insert(first ? written.end() : written.begin(), implicit);
    intended.push_back(spec_of(project, implicit));
  }
  const size_t index = first ? 0 : intended.size();
  intended.insert(intended.begin() + static_cast<std::ptrdiff_t>(index), spec);
  const TextLines lines(text);
  SINDRI_TRY(splices, add_splices(places_of(project, lines), written, first));
  return checked(project, applied(text, std::move(splices)), intended, index + 1);
}

Result<EditedProject> remove_source(const Project& project, std::string_view text, size_t index) {
  std::vector<SourceSpec> intended = specs_of(listed_sources(project));
  if (index >= intended.size()) {
    return make_error("no template source at position " + std::to_string(index + 1) + " in " + project.file.file);
  }
  intended.erase(intended.begin() + static_cast<std::ptrdiff_t>(index));
  const TextLines lines(text);
  SINDRI_TRY(splice, remove_splice(places_of(project, lines), index));
  return checked(project, applied(text, {splice}), intended, index + 1);
}

Result<ProjectFile> read_project_file(const fs::path& directory) {
  SINDRI_TRY(loaded, load_project(directory));
  fs::path path = loaded.file.file;
  SINDRI_TRY(text, read_file_text(path, "project file"));
  // Parsed again from the very bytes that will be edited.
  SINDRI_TRY(project, parse_project(text, loaded.file.file, directory, loaded.root_key));
  return ProjectFile{std::move(project), std::move(text), std::move(path)};
}

Status write_project_file(const fs::path& path, std::string_view text) {
  std::error_code ec;
  // Through a symbolic link to the file it names, which stays a link.
  fs::path target = path;
  if (fs::is_symlink(fs::symlink_status(path, ec))) {
    target = fs::canonical(path, ec);
    if (ec) return make_error("cannot follow the link " + path.string() + ": " + ec.message());
  }
  // The project file is edited, never made: its mode is the one to keep.
  if (!fs::exists(fs::status(target, ec))) return make_error("cannot read the mode of " + target.string() + ": " + ec.message());
  return replace_file(target, text);
}

}  // namespace sindri::repo
