// JSON patch (RFC 6902): add, remove, replace, move, copy and test, with
// JSON pointers (RFC 6901: `~0` is `~`, `~1` is `/`, `-` is past the end of
// an array). Operations apply in order to one working copy; the first that
// fails stops the patch, and its error names its index, op and path. The
// failed-test message is kubectl's ("testing value PATH failed: test failed").

#include <string>
#include <vector>

#include "value/pointer.hpp"
#include "patch/patch.hpp"
#include "value/json.hpp"
#include "value/json_compare.hpp"

namespace sindri::patch {


namespace {

using Tokens = std::vector<std::string>;

Result<Tokens> parse_pointer(std::string_view pointer) {
  Tokens tokens;
  if (pointer.empty()) return tokens;
  if (pointer[0] != '/') return make_error("JSON pointer \"" + std::string(pointer) + "\" does not start with /");
  size_t start = 1;
  while (true) {
    const size_t slash = pointer.find('/', start);
    const std::string_view raw = pointer.substr(start, slash == std::string_view::npos ? slash : slash - start);
    std::string token;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '~') {
        token += raw[i];
      } else if (i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
        token += raw[++i] == '0' ? '~' : '/';
      } else {
        return make_error("invalid escape in JSON pointer \"" + std::string(pointer) + "\"");
      }
    }
    tokens.push_back(std::move(token));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return tokens;
}

// An array index token: digits without leading zeros, below `limit`.
std::optional<size_t> parse_index(const std::string& token, size_t limit) {
  if (token.empty() || token.size() > 18 || (token.size() > 1 && token[0] == '0')) return std::nullopt;
  size_t index = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return std::nullopt;
    index = index * 10 + static_cast<size_t>(c - '0');
  }
  if (index >= limit) return std::nullopt;
  return index;
}

std::string join_pointer(const Tokens& tokens) {
  std::string out;
  for (const std::string& token : tokens) {
    out += '/';
    append_pointer_token(out, token);
  }
  return out;
}

const Value* get(const Value& doc, const Tokens& tokens) {
  const Value* node = &doc;
  for (const std::string& token : tokens) {
    if (node->is_object()) {
      node = node->find(token);
    } else if (node->is_array()) {
      const auto index = parse_index(token, node->size());
      node = index ? node->at(*index) : nullptr;
    } else {
      node = nullptr;
    }
    if (!node) return nullptr;
  }
  return node;
}

// The container holding the last token, for mutation (copy on write).
Result<Value*> parent_of(Value& doc, const Tokens& tokens) {
  Value* node = &doc;
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    const std::string& token = tokens[i];
    Value* next = nullptr;
    if (node->is_object()) {
      for (Member& m : node->mutable_object()) {
        if (m.key.get_string() == token) next = &m.value;
      }
    } else if (node->is_array()) {
      const auto index = parse_index(token, node->size());
      if (index) next = &node->mutable_array()[*index];
    }
    if (!next) return make_error("doc is missing path: " + join_pointer(tokens) + ": missing value");
    node = next;
  }
  return node;
}

Status add(Value& doc, const Tokens& tokens, Value value) {
  if (tokens.empty()) {
    doc = std::move(value);
    return Ok{};
  }
  SINDRI_TRY(parent, parent_of(doc, tokens));
  Value& container = *parent;
  const std::string& last = tokens.back();
  if (container.is_object()) {
    container.set(last, std::move(value));
    return Ok{};
  }
  if (container.is_array()) {
    Array& array = container.mutable_array();
    if (last == "-") {
      array.push_back(std::move(value));
      return Ok{};
    }
    const auto index = parse_index(last, array.size() + 1);
    if (!index) return make_error("Unable to access invalid index: " + last + ": invalid index referenced");
    array.insert(array.begin() + static_cast<long>(*index), std::move(value));
    return Ok{};
  }
  return make_error("doc is missing path: " + join_pointer(tokens) + ": missing value");
}

Result<Value> remove(Value& doc, const Tokens& tokens) {
  if (tokens.empty()) return make_error("cannot remove the whole document");
  SINDRI_TRY(parent, parent_of(doc, tokens));
  Value& container = *parent;
  const std::string& last = tokens.back();
  if (container.is_object()) {
    const Value* found = container.find(last);
    if (!found) return make_error("Unable to remove nonexistent key: " + last + ": missing value");
    Value removed = *found;
    container.erase(last);
    return removed;
  }
  if (container.is_array()) {
    const auto index = parse_index(last, container.size());
    if (!index) return make_error("Unable to remove invalid index: " + last + ": invalid index referenced");
    Array& array = container.mutable_array();
    Value removed = std::move(array[*index]);
    array.erase(array.begin() + static_cast<long>(*index));
    return removed;
  }
  return make_error("doc is missing path: " + join_pointer(tokens) + ": missing value");
}

Status apply_operation(Value& doc, const Value& operation) {
  if (!operation.is_object()) return make_error("an operation must be a map");
  const Value* op = operation.find("op");
  if (!op || !op->is_string()) return make_error("missing op");
  const std::string_view name = op->get_string();
  const Value* path_value = operation.find("path");
  if (!path_value || !path_value->is_string()) return make_error("missing path");
  SINDRI_TRY(path, parse_pointer(path_value->get_string()));
  const Value* value = operation.find("value");
  auto need_value = [&]() -> Status {
    if (!value) return make_error("missing value");
    return Ok{};
  };

  if (name == "add") {
    if (auto s = need_value(); !s) return s;
    return add(doc, path, *value);
  }
  if (name == "remove") {
    SINDRI_CHECK(remove(doc, path));
    return Ok{};
  }
  if (name == "replace") {
    if (auto s = need_value(); !s) return s;
    if (path.empty()) {
      doc = *value;
      return Ok{};
    }
    // As kubectl (evanphx/json-patch v4): a missing object member is added,
    // a missing array element is an error.
    if (get(doc, path)) {
      SINDRI_CHECK(remove(doc, path));
    }
    return add(doc, path, *value);
  }
  if (name == "test") {
    if (auto s = need_value(); !s) return s;
    const Value* found = get(doc, path);
    if (!found || !json_equal(*found, *value)) {
      return make_error("testing value " + std::string(path_value->get_string()) + " failed: test failed");
    }
    return Ok{};
  }
  if (name == "move" || name == "copy") {
    const Value* from_value = operation.find("from");
    if (!from_value || !from_value->is_string()) return make_error("missing from");
    const std::string_view from_text = from_value->get_string();
    SINDRI_TRY(from, parse_pointer(from_text));
    const Value* source = get(doc, from);
    if (!source) return make_error("doc is missing from path: " + std::string(from_text) + ": missing value");
    Value moved = *source;
    if (name == "move") {
      const std::string_view to = path_value->get_string();
      if (to.size() > from_text.size() && to.substr(0, from_text.size()) == from_text &&
          to[from_text.size()] == '/') {
        return make_error("cannot move a value into one of its children");
      }
      SINDRI_CHECK(remove(doc, from));
    }
    return add(doc, path, std::move(moved));
  }
  return make_error("unknown op \"" + std::string(name) + "\"");
}

}  // namespace

PatchResult<Value> json_patch(const Value& original, const Value& operations) {
  if (!operations.is_array()) {
    return PatchError{"a JSON patch must be a list of operations, got " + std::string(operations.kind_name()), "", {}};
  }
  Value doc = original;
  for (size_t i = 0; i < operations.size(); ++i) {
    const Value& operation = *operations.at(i);
    auto status = apply_operation(doc, operation);
    if (!status) {
      const Value* op = operation.find("op");
      const Value* path = operation.find("path");
      // "operation 2 (add /a/b): error in add for path: '/a/b': ...", after kubectl.
      std::string message = "operation " + std::to_string(i);
      const bool named = op && op->is_string() && path && path->is_string();
      if (named) {
        const std::string op_name(op->get_string()), path_text(path->get_string());
        message += " (" + op_name + " " + path_text + "): ";
        if (op_name != "test") message += "error in " + op_name + " for path: '" + path_text + "': ";
      } else {
        message += ": ";
      }
      return PatchError{message + status.error().message, "", {}};
    }
  }
  return doc;
}

}  // namespace sindri::patch
