// Helpers shared by the builtins: value formatting for messages, typed
// argument extraction, dotted paths and UTF-8.

#include <cstdio>

#include "tera/builtins/internal.hpp"
#include "value/json.hpp"
#include "value/number_format.hpp"
#include "value/utf8.hpp"

namespace sindri::tera::builtins {

namespace {

// Messages show a value cut short past this many bytes: a small value may
// stand for gigabytes of text (a list sharing one long list many times).
constexpr size_t kMaxShownBytes = 1024;
constexpr std::string_view kCut = "…";

// The longest start of `s` of at most `max` bytes that ends between chars.
std::string_view utf8_prefix(std::string_view s, size_t max) {
  if (s.size() <= max) return s;
  size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return s.substr(0, end);
}

}  // namespace

std::string display(const Value& v) {
  std::string out;
  if (v.is_string() && v.get_string().size() > kMaxShownBytes) {
    append_json_string(out, utf8_prefix(v.get_string(), kMaxShownBytes));
    out.append(kCut);
  } else if (!append_json_within(out, v, kMaxShownBytes)) {
    out.append(kCut);
  }
  return out;
}

void append_rust_debug_str(std::string& out, std::string_view s) {
  out.push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    size_t start = i;
    char32_t c = next_cp(s, i);
    switch (c) {
      case '"': out.append("\\\""); continue;
      case '\\': out.append("\\\\"); continue;
      case '\n': out.append("\\n"); continue;
      case '\r': out.append("\\r"); continue;
      case '\t': out.append("\\t"); continue;
      case 0: out.append("\\0"); continue;
      default: break;
    }
    if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "\\u{%x}", static_cast<unsigned>(c));
      out.append(buf);
    } else {
      out.append(s.substr(start, i - start));
    }
  }
  out.push_back('"');
}

// Stops, leaving `out` past kMaxShownBytes, once it is longer.
static void append_debug(std::string& out, const Value& v) {
  if (out.size() > kMaxShownBytes) return;
  switch (v.kind()) {
    case Value::Kind::Null: out.append("Null"); return;
    case Value::Kind::Bool: out.append(v.get_bool() ? "Bool(true)" : "Bool(false)"); return;
    case Value::Kind::Int:
      out.append("Number(");
      append_int(out, v.get_int());
      out.push_back(')');
      return;
    case Value::Kind::Float:
      out.append("Number(");
      append_float_json(out, v.get_float());
      out.push_back(')');
      return;
    case Value::Kind::String:
      out.append("String(");
      append_rust_debug_str(out, utf8_prefix(v.get_string(), kMaxShownBytes + 1));
      out.push_back(')');
      return;
    case Value::Kind::Array: {
      out.append("Array [");
      bool first = true;
      for (const Value& e : v.get_array()) {
        if (out.size() > kMaxShownBytes) return;
        if (!first) out.append(", ");
        first = false;
        append_debug(out, e);
      }
      out.push_back(']');
      return;
    }
    case Value::Kind::Object: {
      out.append("Object {");
      bool first = true;
      for (const Member& m : v.get_object()) {
        if (out.size() > kMaxShownBytes) return;
        if (!first) out.append(", ");
        first = false;
        append_rust_debug_str(out, utf8_prefix(m.key.get_string(), kMaxShownBytes + 1));
        out.append(": ");
        append_debug(out, m.value);
      }
      out.push_back('}');
      return;
    }
  }
}

std::string debug(const Value& v) {
  std::string out;
  append_debug(out, v);
  if (out.size() > kMaxShownBytes) {
    out.resize(utf8_prefix(out, kMaxShownBytes).size());
    out.append(kCut);
  }
  return out;
}

Error incorrect_value(std::string_view filter, const Value& v, std::string_view ty) {
  std::string m = "Filter `";
  m.append(filter).append("` was called on an incorrect value: got `").append(display(v));
  m.append("` but expected a ").append(ty);
  return Error{std::move(m)};
}

Error incorrect_arg(std::string_view filter, std::string_view arg, const Value& v, std::string_view ty) {
  std::string m = "Filter `";
  m.append(filter).append("` received an incorrect type for arg `").append(arg).append("`: got `");
  m.append(display(v)).append("` but expected a ").append(ty);
  return Error{std::move(m)};
}

Error missing_arg(std::string_view filter, std::string_view arg) {
  std::string m = "Filter `";
  m.append(filter).append("` expected an arg called `").append(arg).append("`");
  return Error{std::move(m)};
}

Result<std::string_view> arg_string(const Args& args, std::string_view filter, std::string_view name,
                                    std::string_view def) {
  const Value* v = args.find(name);
  if (!v) return def;
  if (!v->is_string()) return incorrect_arg(filter, name, *v, "String");
  return v->get_string();
}

Result<std::optional<std::string_view>> arg_string_opt(const Args& args, std::string_view filter,
                                                       std::string_view name) {
  const Value* v = args.find(name);
  if (!v) return std::optional<std::string_view>();
  if (!v->is_string()) return incorrect_arg(filter, name, *v, "String");
  return std::optional<std::string_view>(v->get_string());
}

Result<bool> arg_bool(const Args& args, std::string_view filter, std::string_view name, bool def) {
  const Value* v = args.find(name);
  if (!v) return def;
  if (!v->is_bool()) return incorrect_arg(filter, name, *v, "bool");
  return v->get_bool();
}

Result<uint64_t> arg_usize(const Args& args, std::string_view filter, std::string_view name, uint64_t def) {
  const Value* v = args.find(name);
  if (!v) return def;
  uint64_t out;
  if (!as_usize(*v, out)) return incorrect_arg(filter, name, *v, "usize");
  return out;
}

Result<int64_t> arg_i64(const Args& args, std::string_view filter, std::string_view name, int64_t def) {
  const Value* v = args.find(name);
  if (!v) return def;
  if (!v->is_int()) return incorrect_arg(filter, name, *v, "i64");
  return v->get_int();
}

std::string unescape_pat(std::string_view p) {
  std::string out;
  out.reserve(p.size());
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '\\' && i + 1 < p.size() && (p[i + 1] == 'n' || p[i + 1] == 't')) {
      out.push_back(p[i + 1] == 'n' ? '\n' : '\t');
      ++i;
    } else {
      out.push_back(p[i]);
    }
  }
  return out;
}

namespace {

// Tera's PointerMachina: splits a dotted path into segments, honouring
// quotes, brackets and backslash escapes, quirks included.
class PathSplitter {
 public:
  explicit PathSplitter(std::string_view p) : p_(p) {}

  bool next(std::string_view& out) {
    std::string_view fwd = p_.substr(last_);
    size_t offset = 0;
    for (size_t i = 0; i < fwd.size(); ++i) {
      char c = fwd[i];
      switch (c) {
        case '"':
        case '\'':
          if (!escaped_) {
            bool& q = c == '"' ? dual_ : single_;
            q = !q;
            if (i == offset) {
              offset += 1;
            } else if (cut(offset, i, out)) {
              return true;
            }
          }
          break;
        case '\\':
          escaped_ = true;
          continue;
        case '[':
          if (!single_ && !dual_ && !escaped_ && cut(offset, i, out)) return true;
          break;
        case ']':
          if (!single_ && !dual_ && !escaped_) offset += 1;
          break;
        case '.':
          if (!single_ && !dual_ && !escaped_) {
            if (i == offset) {
              offset += 1;
            } else if (cut(offset, i, out)) {
              return true;
            }
          }
          break;
        default:
          break;
      }
      escaped_ = false;
    }
    if (last_ + offset < p_.size()) {
      out = p_.substr(last_ + offset);
      last_ = p_.size();
      return true;
    }
    return false;
  }

 private:
  // Ends the current segment before position i of the remaining text; an
  // empty segment is skipped (false), as Tera does.
  bool cut(size_t offset, size_t i, std::string_view& out) {
    std::string_view r = slice(last_ + offset, last_ + i);
    last_ += i + 1;
    if (r.empty()) return false;
    out = r;
    return true;
  }

  std::string_view slice(size_t a, size_t b) const {
    if (a >= b || a >= p_.size()) return {};
    return p_.substr(a, std::min(b, p_.size()) - a);
  }
  std::string_view p_;
  bool single_ = false, dual_ = false, escaped_ = false;
  size_t last_ = 0;
};

bool parse_index(std::string_view s, size_t& out) {
  if (s.empty() || s[0] == '+' || (s[0] == '0' && s.size() != 1)) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    if (v > (UINT64_MAX - 9) / 10) return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  out = static_cast<size_t>(v);
  return true;
}

}  // namespace

const Value* dotted_pointer(const Value& root, std::string_view path) {
  if (path.empty()) return &root;
  PathSplitter split(path);
  const Value* cur = &root;
  std::string_view seg;
  std::string tmp;
  while (split.next(seg)) {
    std::string_view token = seg;
    if (seg.find('~') != std::string_view::npos) {
      tmp.clear();
      // replace("~1", "/") then replace("~0", "~")
      std::string a;
      for (size_t i = 0; i < seg.size(); ++i) {
        if (seg[i] == '~' && i + 1 < seg.size() && seg[i + 1] == '1') {
          a.push_back('/');
          ++i;
        } else {
          a.push_back(seg[i]);
        }
      }
      for (size_t i = 0; i < a.size(); ++i) {
        if (a[i] == '~' && i + 1 < a.size() && a[i + 1] == '0') {
          tmp.push_back('~');
          ++i;
        } else {
          tmp.push_back(a[i]);
        }
      }
      token = tmp;
    }
    if (cur->is_object()) {
      cur = cur->find(token);
    } else if (cur->is_array()) {
      size_t idx;
      cur = parse_index(token, idx) ? cur->at(idx) : nullptr;
    } else {
      cur = nullptr;
    }
    if (!cur) return nullptr;
  }
  return cur;
}

char32_t next_cp(std::string_view s, size_t& i) {
  const Utf8CodePoint c = decode_utf8(s, i);
  if (c.length == 0) {
    ++i;
    return 0xfffd;
  }
  i += c.length;
  return c.value;
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3f)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xe0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xf0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3f)));
  }
}

size_t count_chars(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  return n;
}

}  // namespace sindri::tera::builtins
