#include "value/setting_text.hpp"

#include <charconv>
#include <cstdio>

namespace sindri {

Result<int64_t> integer_from_text(std::string_view text, std::string_view where) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    return make_error(std::string(where) + ": expected an integer, got \"" + std::string(text) + "\"");
  }
  return value;
}

Result<std::vector<std::string>> string_list(const Value& value, const std::string& where) {
  std::vector<std::string> items;
  auto add = [&](std::string_view text) {
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
    if (!text.empty()) items.emplace_back(text);
  };
  if (value.is_string()) {
    std::string_view rest = value.get_string();
    for (size_t comma; (comma = rest.find(',')) != std::string_view::npos; rest.remove_prefix(comma + 1)) {
      add(rest.substr(0, comma));
    }
    add(rest);
    return items;
  }
  if (!value.is_array()) return make_error(where + ": expected a list of strings, got " + value.kind_name());
  for (size_t i = 0; i < value.size(); ++i) {
    const Value& item = *value.at(i);
    if (!item.is_string()) {
      return make_error(where + "[" + std::to_string(i) + "]: expected a string, got " + item.kind_name());
    }
    add(item.get_string());
  }
  return items;
}

std::string duration_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", seconds);
  return text;
}

}  // namespace sindri
