#pragma once
// What both outline walkers (the event walk in outline.cpp, the line
// scanner in block_outline.cpp) keep of a document's top-level mapping:
// the value of each asked-for key, and which of them is awaiting its value.

#include <algorithm>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "value/value.hpp"

namespace sindri::yaml_detail {

class TopLevelKeys {
 public:
  explicit TopLevelKeys(std::span<const std::string_view> asked) : asked_(asked) {}

  void start_document() {
    values_.assign(asked_.size(), std::nullopt);
    awaiting_ = kNone;
  }
  // A key of the top-level mapping: the next value given is its own.
  void key(std::string_view key) {
    auto it = std::find(asked_.begin(), asked_.end(), key);
    awaiting_ = it == asked_.end() ? kNone : static_cast<size_t>(it - asked_.begin());
  }
  // Whether the value that comes next belongs to an asked-for key.
  bool awaiting() const { return awaiting_ != kNone; }
  void value(Value value) {
    if (awaiting_ != kNone) values_[awaiting_] = std::move(value);
    awaiting_ = kNone;
  }
  // YamlDocumentOutline::top of a mapping: the asked-for keys found, in key order.
  Value top() {
    Object members;
    for (size_t i = 0; i < asked_.size(); ++i) {
      if (values_[i]) members.push_back(Member{Value(asked_[i]), std::move(*values_[i])});
    }
    std::sort(members.begin(), members.end(),
              [](const Member& a, const Member& b) { return a.key.get_string() < b.key.get_string(); });
    return Value(std::move(members));
  }

 private:
  static constexpr size_t kNone = static_cast<size_t>(-1);
  std::span<const std::string_view> asked_;
  std::vector<std::optional<Value>> values_;
  size_t awaiting_ = kNone;
};

}  // namespace sindri::yaml_detail
