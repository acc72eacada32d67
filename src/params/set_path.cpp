// Helm's strvals (helm.sh/helm/v3/pkg/strvals), the parser behind --set.

#include <algorithm>
#include <charconv>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "params/values.hpp"

namespace sindri::params {

namespace {

// Helm's bounds: a path nested deeper, or an index larger, is an error
// rather than a huge allocation.
constexpr size_t kMaxDepth = 30;
constexpr size_t kMaxIndex = 65536;

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return (x | 0x20) == (y | 0x20);
         });
}

using Step = std::variant<std::string, size_t>;  // a mapping key or a list index

Value& member_slot(Value& object, std::string_view key) {
  Object& members = object.mutable_object();
  auto it = std::lower_bound(members.begin(), members.end(), key,
                             [](const Member& m, std::string_view k) { return m.key.get_string() < k; });
  if (it == members.end() || it->key.get_string() != key) it = members.insert(it, Member{Value(key), Value()});
  return it->value;
}

void assign(Value& target, std::span<const Step> path, Value value) {
  if (path.empty()) {
    target = std::move(value);
    return;
  }
  if (const auto* key = std::get_if<std::string>(&path.front())) {
    if (!target.is_object()) target = Value(Object{});
    assign(member_slot(target, *key), path.subspan(1), std::move(value));
    return;
  }
  const size_t index = std::get<size_t>(path.front());
  if (!target.is_array()) target = Value(Array{});
  Array& items = target.mutable_array();
  if (items.size() <= index) items.resize(index + 1);
  assign(items[index], path.subspan(1), std::move(value));
}

class SetParser {
 public:
  SetParser(std::string_view text, SetMode mode) : text_(text), mode_(mode) {}

  Result<Ok, SetError> apply(Value& values) {
    while (pos_ < text_.size()) {
      std::vector<Step> path;
      Value value;
      if (!parse_assignment(path, value)) return error_;
      assign(values, path, std::move(value));
    }
    return Ok{};
  }

 private:
  bool fail(size_t at, std::string message) {
    error_ = SetError{std::string(text_), at + 1, std::move(message)};
    return false;
  }

  // Characters up to one of `stops` (not consumed), with `\` escapes undone.
  std::string until(std::string_view stops) {
    std::string out;
    while (pos_ < text_.size() && stops.find(text_[pos_]) == std::string_view::npos) {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      out += text_[pos_++];
    }
    return out;
  }

  bool at_end() const { return pos_ >= text_.size(); }

  bool parse_assignment(std::vector<Step>& path, Value& value) {
    const size_t start = pos_;
    while (true) {
      const size_t name_at = pos_;
      std::string name = until("=[,.");
      if (name.empty()) return fail(name_at, at_end() || text_[pos_] == ',' ? "expected `name=value`" : "empty name");
      path.emplace_back(std::move(name));
      while (!at_end() && text_[pos_] == '[') {
        if (!parse_index(path)) return false;
      }
      if (path.size() > kMaxDepth) {
        return fail(name_at, "nested deeper than " + std::to_string(kMaxDepth) + " levels");
      }
      if (at_end() || text_[pos_] == ',') {
        return fail(at_end() ? text_.size() : pos_,
                    "`" + std::string(text_.substr(start, pos_ - start)) + "` has no value (expected `=`)");
      }
      const char c = text_[pos_++];
      if (c == '=') break;
      if (c != '.') return fail(pos_ - 1, std::string("expected `.`, `[` or `=` after `]`, found `") + c + "`");
    }
    return parse_value(value);
  }

  bool parse_index(std::vector<Step>& path) {
    const size_t open = pos_++;
    const size_t close = text_.find(']', pos_);
    if (close == std::string_view::npos) return fail(open, "`[` without `]`");
    const std::string_view digits = text_.substr(pos_, close - pos_);
    size_t index = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) {
      return fail(pos_, digits.starts_with('-') ? "negative index `" + std::string(digits) + "`"
                                                : "index `" + std::string(digits) + "` is not a number");
    }
    if (index > kMaxIndex) return fail(pos_, "index " + std::to_string(index) + " is larger than " + std::to_string(kMaxIndex));
    pos_ = close + 1;
    if (!at_end() && text_[pos_] != '=' && text_[pos_] != '.' && text_[pos_] != '[') {
      return fail(pos_, std::string("expected `.`, `[` or `=` after `]`, found `") + text_[pos_] + "`");
    }
    path.emplace_back(index);
    return true;
  }

  Value scalar(std::string_view text) const { return mode_ == SetMode::String ? Value(text) : typed_value(text); }

  // After a value: the end, or `,` and the next assignment.
  bool end_of_value() {
    if (at_end()) return true;
    if (text_[pos_] != ',') return fail(pos_, std::string("expected `,` after a list, found `") + text_[pos_] + "`");
    ++pos_;
    return true;
  }

  bool parse_value(Value& value) {
    if (at_end() || text_[pos_] != '{') {
      value = scalar(until(","));
      if (!at_end()) ++pos_;  // the `,` before the next assignment
      return true;
    }
    const size_t open = pos_++;
    Array items;
    if (!at_end() && text_[pos_] == '}') {
      ++pos_;
      value = Value(std::move(items));
      return end_of_value();
    }
    while (true) {
      std::string item = until(",}");
      if (at_end()) return fail(open, "list has no closing `}`");
      items.push_back(scalar(item));
      if (text_[pos_++] == '}') break;
    }
    value = Value(std::move(items));
    return end_of_value();
  }

  std::string_view text_;
  SetMode mode_;
  size_t pos_ = 0;
  SetError error_;
};

}  // namespace

Value typed_value(std::string_view text) {
  if (iequals(text, "true")) return Value(true);
  if (iequals(text, "false")) return Value(false);
  if (iequals(text, "null")) return Value();
  if (text == "0") return Value(0);
  // Go's strconv.ParseInt: an optional sign, then decimal digits. Helm skips
  // it for text starting with `0`, so that `0755` and `007` stay strings.
  if (!text.empty() && text[0] != '0') {
    std::string_view digits = text;
    bool negative = false;
    if (digits[0] == '+' || digits[0] == '-') {
      negative = digits[0] == '-';
      digits.remove_prefix(1);
    }
    uint64_t magnitude = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
    const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
    if (!digits.empty() && ec == std::errc() && end == digits.data() + digits.size() && magnitude <= limit) {
      return Value(negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude));
    }
  }
  return Value(text);
}

std::string SetError::describe() const {
  return "`" + argument + "` at column " + std::to_string(column) + ": " + message;
}

Result<Ok, SetError> apply_set(Value& values, std::string_view argument, SetMode mode) {
  if (!values.is_object()) values = Value(Object{});
  return SetParser(argument, mode).apply(values);
}

}  // namespace sindri::params
