#include "agent/toml_config.hpp"

#include <algorithm>
#include <sstream>

// Errors come back as values (toml::parse_result), not exceptions.
#define TOML_EXCEPTIONS 0
#include <toml++/toml.h>

namespace sindri::agent {
namespace {

// Deeper than any configuration; a bound so that a hostile file cannot run
// the conversion (recursive) out of stack.
constexpr size_t kMaxDepth = 128;

// toml++ bounds the nesting of inline arrays and tables, not of dotted keys:
// [a.a.a...] 20,000 deep overflows its parser's stack. Each level needs a
// '.', '[' or '{', so a text with fewer of them cannot nest deeper than that
// (toml++ parses 10,000 levels under AddressSanitizer).
constexpr size_t kMaxNestingMarks = 8192;

std::string position_text(const std::string& file, const toml::source_position& at) {
  return file + ":" + std::to_string(at.line) + ":" + std::to_string(at.column);
}

template <class T>
std::string toml_text(const T& value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

Result<Value> to_value(const toml::node& node, const std::string& file, size_t depth) {
  if (depth > kMaxDepth) {
    return make_error(position_text(file, node.source().begin) + ": nested deeper than " + std::to_string(kMaxDepth) +
                      " tables and arrays");
  }
  if (const toml::table* table = node.as_table()) {
    Object members;
    members.reserve(table->size());
    for (const auto& [key, member] : *table) {
      SINDRI_TRY(value, to_value(member, file, depth + 1));
      members.push_back(Member{Value(key.str()), std::move(value)});
    }
    return Value(std::move(members));
  }
  if (const toml::array* array = node.as_array()) {
    Array items;
    items.reserve(array->size());
    for (const toml::node& item : *array) {
      SINDRI_TRY(value, to_value(item, file, depth + 1));
      items.push_back(std::move(value));
    }
    return Value(std::move(items));
  }
  if (const auto* text = node.as_string()) return Value(text->get());
  if (const auto* integer = node.as_integer()) return Value(integer->get());
  if (const auto* number = node.as_floating_point()) return Value(number->get());
  if (const auto* boolean = node.as_boolean()) return Value(boolean->get());
  if (const auto* date = node.as_date()) return Value(toml_text(date->get()));
  if (const auto* time = node.as_time()) return Value(toml_text(time->get()));
  if (const auto* date_time = node.as_date_time()) return Value(toml_text(date_time->get()));
  return make_error(position_text(file, node.source().begin) + ": a TOML value of no known type");
}

}  // namespace

Result<Value> parse_toml(std::string_view text, const std::string& file) {
  const auto marks = std::count_if(text.begin(), text.end(), [](char c) { return c == '.' || c == '[' || c == '{'; });
  if (static_cast<size_t>(marks) > kMaxNestingMarks) {
    return make_error(file + ": more than " + std::to_string(kMaxNestingMarks) +
                      " '.', '[' and '{', which could nest too deeply to read; a configuration needs far fewer");
  }
  toml::parse_result parsed = toml::parse(text, file);
  if (!parsed) {
    const toml::parse_error& error = parsed.error();
    return make_error(position_text(file, error.source().begin) + ": " + std::string(error.description()));
  }
  return to_value(parsed.table(), file, 0);
}

}  // namespace sindri::agent
