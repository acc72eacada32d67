#include "placeholder/resolver.hpp"

#include "value/pointer.hpp"

#include <utility>

#include "placeholder/kcl.hpp"

namespace sindri::placeholder {

namespace {

bool is_path_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '-';
}

bool is_blank(char c) { return c == ' ' || c == '\t'; }

size_t skip_blanks(std::string_view s, size_t i) {
  while (i < s.size() && is_blank(s[i])) ++i;
  return i;
}

// A placeholder found in a string: [begin, end) and its path.
struct Match {
  size_t begin = 0;
  size_t end = 0;
  std::string_view path;
};

// Parses the placeholder whose `$slapperRef` starts at `at`; false when the
// text there does not follow the grammar.
bool match_at(std::string_view s, size_t at, Match& m) {
  size_t open = at;
  while (open > 0 && is_blank(s[open - 1])) --open;
  if (open == 0 || s[open - 1] != '{') return false;
  m.begin = open - 1;
  size_t i = skip_blanks(s, at + kRefKey.size());
  if (i >= s.size() || s[i] != ':') return false;
  i = skip_blanks(s, i + 1);
  const size_t path_begin = i;
  while (i < s.size() && is_path_char(s[i])) ++i;
  if (i == path_begin) return false;
  m.path = s.substr(path_begin, i - path_begin);
  i = skip_blanks(s, i);
  if (i >= s.size() || s[i] != '}') return false;
  m.end = i + 1;
  return true;
}

struct Walk {
  const Resolver& resolver;
  const YamlDocument& document;
  std::string_view file;

  Error located(const std::string& pointer, std::string_view path, const std::string& message,
                size_t text_line = 0) const {
    std::string out(file.empty() ? "<input>" : file);
    if (const YamlPosition* at = document.position_of(pointer)) {
      out += ':';
      out += std::to_string(at->line);
      out += ':';
      out += std::to_string(at->column);
    }
    out += ": placeholder " + std::string(path) + " at " + (pointer.empty() ? "/" : pointer);
    if (text_line > 0) out += " (line " + std::to_string(text_line) + " of the string)";
    return make_error(out + ": " + message);
  }

  Result<Value> node(const Value& v, const std::string& pointer) const {
    if (v.is_object()) {
      if (const Value* ref = v.find(kRefKey)) return placeholder_node(v, *ref, pointer);
      Value out = v;
      for (const Member& m : v.get_object()) {
        auto resolved = node(m.value, pointer_child(pointer, m.key.get_string()));
        if (!resolved) return resolved;
        out.set(m.key.get_string(), std::move(resolved).value());
      }
      return out;
    }
    if (v.is_array()) {
      Value out = v;
      Array& items = out.mutable_array();
      for (size_t i = 0; i < items.size(); ++i) {
        auto resolved = node(items[i], pointer + "/" + std::to_string(i));
        if (!resolved) return resolved;
        items[i] = std::move(resolved).value();
      }
      return out;
    }
    if (v.is_string() && v.get_string().find(kRefKey) != std::string_view::npos) return string_node(v, pointer);
    return v;
  }

  Result<Value> placeholder_node(const Value& map, const Value& ref, const std::string& pointer) const {
    if (!ref.is_string()) {
      return located(pointer, "?", std::string("the path must be a string, not a ") + ref.kind_name());
    }
    if (map.size() != 1) return located(pointer, ref.get_string(), "a placeholder must be its map's only key");
    auto value = resolver.lookup(ref.get_string());
    if (!value) return located(pointer, ref.get_string(), value.error().message);
    if (kcl::is_expression(*value)) return Value(kcl::expression_text(*value));
    return value;
  }

  Result<Value> string_node(const Value& v, const std::string& pointer) const {
    const std::string_view text = v.get_string();
    std::string out;
    size_t copied = 0;
    size_t line = 1;
    size_t line_start = 0;
    for (size_t at = text.find(kRefKey); at != std::string_view::npos; at = text.find(kRefKey, at + 1)) {
      for (size_t i = copied; i < at; ++i) {
        if (text[i] == '\n') ++line, line_start = i + 1;
      }
      Match m;
      if (!match_at(text, at, m) || m.begin < copied) {
        return located(pointer, "?", "malformed placeholder in the string; expected {$slapperRef: PATH}", line);
      }
      auto value = resolver.lookup(m.path);
      if (!value) return located(pointer, m.path, value.error().message, line);
      auto kcl_text = kcl::to_kcl(*value);
      if (!kcl_text) return located(pointer, m.path, kcl_text.error().message, line);
      const std::string indent(text.substr(line_start, skip_blanks(text, line_start) - line_start));
      out.append(text.substr(copied, m.begin - copied));
      for (char c : *kcl_text) {
        out.push_back(c);
        if (c == '\n') out += indent;
      }
      copied = m.end;
      at = m.end - 1;
    }
    out.append(text.substr(copied));
    return Value(out);
  }
};

}  // namespace

void Resolver::add_root(std::string name, RootLookup lookup) { roots_[std::move(name)] = std::move(lookup); }

Result<Value> Resolver::lookup(std::string_view path) const {
  const size_t dot = path.find('.');
  const std::string_view root = path.substr(0, dot);
  const auto it = roots_.find(root);
  if (it == roots_.end()) {
    std::string known;
    for (const auto& [name, unused] : roots_) known += (known.empty() ? "" : ", ") + name;
    return make_error("unknown root \"" + std::string(root) + "\" (known roots: " +
                      (known.empty() ? std::string("none") : known) + ")");
  }
  return it->second(dot == std::string_view::npos ? std::string_view{} : path.substr(dot + 1));
}

Result<Value> Resolver::resolve(const YamlDocument& document, std::string_view file) const {
  return Walk{*this, document, file}.node(document.value, "");
}

}  // namespace sindri::placeholder
