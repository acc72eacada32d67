// Filters on strings (Tera's builtins/filters/string.rs).

#include <charconv>

#include "tera/builtins/internal.hpp"
#include "tera/builtins/numbers.hpp"
#include "tera/builtins/unicode.hpp"

namespace sindri::tera::builtins {

namespace {

// The input of a filter that requires a string, charged as read: the
// filters whose output may be larger than a constant times their input
// also charge what they write.
#define SINDRI_STRING_INPUT(var, filter)                                   \
  if (!input.is_string()) return incorrect_value(filter, input, "String"); \
  std::string_view var = input.get_string();                               \
  if (!budget.charge(var.size())) return Budget::stopped()

Value same_or(const Value& input, std::string_view s, std::string_view out) {
  if (out.size() == s.size()) return input;  // unchanged: share the original
  return Value(out);
}

// `s` with every `from` replaced by `to`, unless that would pass the size
// limit: each occurrence may add all of `to`.
Result<std::string> replace_all(std::string_view s, std::string_view from, std::string_view to, Budget& budget) {
  std::string out;
  if (from.empty()) {
    // Rust inserts `to` around every char.
    const size_t size = s.size() + (count_chars(s) + 1) * to.size();
    if (!budget.fits(size)) return Budget::stopped();
    out.reserve(size);
    out.append(to);
    size_t i = 0;
    while (i < s.size()) {
      size_t start = i;
      next_cp(s, i);
      out.append(s.substr(start, i - start));
      out.append(to);
    }
    return out;
  }
  out.reserve(s.size());
  size_t pos = 0;
  while (true) {
    size_t hit = find_text(s, from, pos);
    if (hit == std::string_view::npos) break;
    if (!budget.fits(out.size() + (hit - pos) + to.size())) return Budget::stopped();
    out.append(s.substr(pos, hit - pos));
    out.append(to);
    pos = hit + from.size();
  }
  if (!budget.fits(out.size() + (s.size() - pos))) return Budget::stopped();
  out.append(s.substr(pos));
  return out;
}

Result<std::string> pat_arg(const Args& args, std::string_view filter, Budget& budget) {
  const Value* p = args.find("pat");
  if (!p) return missing_arg(filter, "pat");
  if (!p->is_string()) return incorrect_arg(filter, "pat", *p, "String");
  if (!budget.charge(p->get_string().size())) return Budget::stopped();
  return unescape_pat(p->get_string());
}

}  // namespace

Result<Value> f_upper(const Value& input, const Args&, Budget& budget) {
  SINDRI_STRING_INPUT(s, "upper");
  std::string out;
  out.reserve(s.size());
  unicode::append_upper(out, s);
  return Value(out);
}

Result<Value> f_lower(const Value& input, const Args&, Budget& budget) {
  SINDRI_STRING_INPUT(s, "lower");
  std::string out;
  out.reserve(s.size());
  unicode::append_lower(out, s);
  return Value(out);
}

Result<Value> f_trim(const Value& input, const Args&, Budget& budget) {
  SINDRI_STRING_INPUT(s, "trim");
  return same_or(input, s, rust_trim(s));
}

Result<Value> f_trim_start(const Value& input, const Args&, Budget& budget) {
  SINDRI_STRING_INPUT(s, "trim_start");
  return same_or(input, s, rust_trim_start(s));
}

Result<Value> f_trim_end(const Value& input, const Args&, Budget& budget) {
  SINDRI_STRING_INPUT(s, "trim_end");
  return same_or(input, s, rust_trim_end(s));
}

Result<Value> f_trim_start_matches(const Value& input, const Args& args, Budget& budget) {
  SINDRI_STRING_INPUT(s, "trim_start_matches");
  auto pat = pat_arg(args, "trim_start_matches", budget);
  if (!pat) return pat.error();
  std::string_view r = s;
  if (!pat->empty()) {
    while (r.substr(0, pat->size()) == *pat) r.remove_prefix(pat->size());
  }
  return same_or(input, s, r);
}

Result<Value> f_trim_end_matches(const Value& input, const Args& args, Budget& budget) {
  SINDRI_STRING_INPUT(s, "trim_end_matches");
  auto pat = pat_arg(args, "trim_end_matches", budget);
  if (!pat) return pat.error();
  std::string_view r = s;
  if (!pat->empty()) {
    while (r.size() >= pat->size() && r.substr(r.size() - pat->size()) == *pat) r.remove_suffix(pat->size());
  }
  return same_or(input, s, r);
}

Result<Value> f_truncate(const Value& input, const Args& args, Budget& budget) {
  SINDRI_STRING_INPUT(s, "truncate");
  SINDRI_TRY(length, arg_usize(args, "truncate", "length", 255));
  SINDRI_TRY(end, arg_string(args, "truncate", "end", "…"));
  // Fewer bytes than `length` means fewer graphemes too.
  if (length >= s.size()) return input;
  if (!budget.charge(unicode::kGraphemeSetupSteps)) return Budget::stopped();
  size_t cut = unicode::grapheme_offset(s, static_cast<size_t>(length));
  if (cut == std::string_view::npos) return input;
  if (!budget.charge(end.size())) return Budget::stopped();
  std::string out;
  out.reserve(cut + end.size());
  out.append(s.substr(0, cut));
  out.append(end);
  return Value(out);
}

Result<Value> f_wordcount(const Value& input, const Args&, Budget& budget) {
  SINDRI_STRING_INPUT(s, "wordcount");
  int64_t words = 0;
  bool in_word = false;
  size_t i = 0;
  while (i < s.size()) {
    bool ws = is_rust_whitespace(next_cp(s, i));
    if (!ws && !in_word) ++words;
    in_word = !ws;
  }
  return Value(words);
}

Result<Value> f_replace(const Value& input, const Args& args, Budget& budget) {
  SINDRI_STRING_INPUT(s, "replace");
  const Value* from = args.find("from");
  if (!from) return missing_arg("replace", "from");
  if (!from->is_string()) return incorrect_arg("replace", "from", *from, "String");
  const Value* to = args.find("to");
  if (!to) return missing_arg("replace", "to");
  if (!to->is_string()) return incorrect_arg("replace", "to", *to, "String");
  std::string_view f = from->get_string();
  if (!f.empty() && find_text(s, f) == std::string_view::npos) return input;
  Result<std::string> out = replace_all(s, f, to->get_string(), budget);
  if (!out) return out.error();
  if (!budget.charge(out->size())) return Budget::stopped();
  return Value(*out);
}

Result<Value> f_capitalize(const Value& input, const Args&, Budget& budget) {
  SINDRI_STRING_INPUT(s, "capitalize");
  if (s.empty()) return Value("");
  size_t i = 0;
  next_cp(s, i);
  std::string out;
  out.reserve(s.size());
  unicode::append_upper(out, s.substr(0, i));
  unicode::append_lower(out, s.substr(i));
  return Value(out);
}

// Tera 1.18+: `\b(?P<first>[\w'])(?P<rest>[\w']*)\b` replaced by
// first.to_uppercase() + rest.to_lowercase().
Result<Value> f_title(const Value& input, const Args&, Budget& budget) {
  SINDRI_STRING_INPUT(s, "title");
  // Decode once: code points with their byte offsets.
  std::vector<char32_t> cps;
  std::vector<size_t> offs;
  cps.reserve(s.size());
  offs.reserve(s.size() + 1);
  for (size_t i = 0; i < s.size();) {
    offs.push_back(i);
    cps.push_back(next_cp(s, i));
  }
  offs.push_back(s.size());
  const size_t n = cps.size();
  std::vector<unsigned char> word(n);
  for (size_t k = 0; k < n; ++k) word[k] = unicode::is_word_char(cps[k]);
  auto boundary = [&](size_t k) {
    bool before = k > 0 && word[k - 1];
    bool after = k < n && word[k];
    return before != after;
  };
  auto in_class = [&](size_t k) { return word[k] || cps[k] == '\''; };

  std::string out;
  out.reserve(s.size());
  size_t copied = 0;  // code point index up to which the input was copied
  size_t k = 0;
  while (k < n) {
    if (boundary(k) && in_class(k)) {
      size_t e = k + 1;
      while (e < n && in_class(e)) ++e;
      while (e > k + 1 && !boundary(e)) --e;
      if (boundary(e)) {
        out.append(s.substr(offs[copied], offs[k] - offs[copied]));
        unicode::append_upper(out, s.substr(offs[k], offs[k + 1] - offs[k]));
        unicode::append_lower(out, s.substr(offs[k + 1], offs[e] - offs[k + 1]));
        copied = e;
        k = e;
        continue;
      }
    }
    ++k;
  }
  out.append(s.substr(offs[copied]));
  return Value(out);
}

Result<Value> f_linebreaksbr(const Value& input, const Args&, Budget& budget) {
  SINDRI_STRING_INPUT(s, "linebreaksbr");
  if (s.find('\n') == std::string_view::npos) return input;
  std::string out;
  out.reserve(s.size() + 16);
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') {
      out.append("<br>");
      ++i;
    } else if (s[i] == '\n') {
      out.append("<br>");
    } else {
      out.push_back(s[i]);
    }
  }
  return Value(out);
}

// Tera 1.18+ `indent`: prefix (default 4 spaces) before every line but the
// first (unless first=true) and blank ones (unless blank=true). Lines are
// Rust's str::lines(): a final newline ends the last line, "\r\n" counts as one.
Result<Value> f_indent(const Value& input, const Args& args, Budget& budget) {
  SINDRI_STRING_INPUT(s, "indent");
  SINDRI_TRY(prefix, arg_string(args, "indent", "prefix", "    "));
  auto first = arg_bool(args, "indent", "first", false);
  if (!first) return first.error();
  SINDRI_TRY(blank, arg_bool(args, "indent", "blank", false));

  std::string out;
  out.reserve(s.size() + prefix.size() * 8);
  size_t pos = 0;
  bool first_pass = true;
  while (pos < s.size()) {
    size_t nl = s.find('\n', pos);
    std::string_view line;
    if (nl == std::string_view::npos) {
      line = s.substr(pos);
      pos = s.size();
    } else {
      line = s.substr(pos, nl - pos);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      pos = nl + 1;
    }
    // Each line may add all of the prefix.
    if (!budget.fits(out.size() + 1 + prefix.size() + line.size())) return Budget::stopped();
    if (first_pass) {
      if (*first) out.append(prefix);
      first_pass = false;
    } else {
      out.push_back('\n');
      if (blank || !rust_trim_start(line).empty()) out.append(prefix);
    }
    out.append(line);
  }
  if (!budget.charge(out.size())) return Budget::stopped();
  return Value(out);
}

// `(<!--.*?-->|<[^>]*>)` removed.
Result<Value> f_striptags(const Value& input, const Args&, Budget& budget) {
  SINDRI_STRING_INPUT(s, "striptags");
  if (s.find('<') == std::string_view::npos) return input;
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  // The first `-->` and newline after the latest `<!--`: searched again only
  // once passed, so that many `<!--` do not each search the rest of the text.
  size_t close = 0, nl = 0;
  while (i < s.size()) {
    size_t lt = s.find('<', i);
    if (lt == std::string_view::npos) break;
    size_t end = std::string_view::npos;
    if (s.substr(lt, 4) == "<!--") {
      if (close != std::string_view::npos && close < lt + 4) close = s.find("-->", lt + 4);
      if (nl != std::string_view::npos && nl < lt + 4) nl = s.find('\n', lt + 4);
      // `.*?` does not cross a newline.
      if (close != std::string_view::npos && (nl == std::string_view::npos || nl >= close)) end = close + 3;
    }
    if (end == std::string_view::npos) {
      size_t gt = s.find('>', lt + 1);
      if (gt != std::string_view::npos) end = gt + 1;
    }
    if (end == std::string_view::npos) {
      // No tag can start at or after this `<` either (no `>` follows).
      break;
    }
    out.append(s.substr(i, lt - i));
    i = end;
  }
  out.append(s.substr(i));
  return Value(out);
}

// `>\s+<` replaced by `><`.
Result<Value> f_spaceless(const Value& input, const Args&, Budget& budget) {
  SINDRI_STRING_INPUT(s, "spaceless");
  std::string out;
  size_t copied = 0;
  size_t i = 0;
  bool changed = false;
  while (true) {
    size_t gt = s.find('>', i);
    if (gt == std::string_view::npos) break;
    size_t j = gt + 1;
    size_t spaces = 0;
    while (j < s.size()) {
      size_t k = j;
      if (!is_rust_whitespace(next_cp(s, k))) break;
      j = k;
      ++spaces;
    }
    if (spaces > 0 && j < s.size() && s[j] == '<') {
      if (!changed) out.reserve(s.size());
      changed = true;
      out.append(s.substr(copied, gt + 1 - copied));
      copied = j;
      i = j + 1;
    } else {
      i = gt + 1;
    }
  }
  if (!changed) return input;
  out.append(s.substr(copied));
  return Value(out);
}

namespace {

const char kHex[] = "0123456789ABCDEF";

template <class Keep>
Value percent_encode(const Value& input, std::string_view s, Keep keep) {
  size_t i = 0;
  while (i < s.size() && keep(static_cast<unsigned char>(s[i]))) ++i;
  if (i == s.size()) return input;
  std::string out;
  out.reserve(s.size() + 16);
  out.append(s.substr(0, i));
  for (; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (keep(c)) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return Value(out);
}

bool is_alnum(unsigned char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

}  // namespace

Result<Value> f_urlencode(const Value& input, const Args&, Budget& budget) {
  SINDRI_STRING_INPUT(s, "urlencode");
  return percent_encode(input, s, [](unsigned char c) {
    return is_alnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/' || c == '%';
  });
}

Result<Value> f_urlencode_strict(const Value& input, const Args&, Budget& budget) {
  SINDRI_STRING_INPUT(s, "urlencode_strict");
  return percent_encode(input, s, is_alnum);
}

Result<Value> f_escape(const Value& input, const Args&, Budget& budget) {
  SINDRI_STRING_INPUT(s, "escape_html");
  std::string out;
  append_html_escaped(out, s);
  if (out.size() == s.size()) return input;
  return Value(out);
}

Result<Value> f_escape_xml(const Value& input, const Args&, Budget& budget) {
  SINDRI_STRING_INPUT(s, "escape_html");
  std::string out;
  out.reserve(s.size() + 16);
  for (char c : s) {
    switch (c) {
      case '&': out.append("&amp;"); break;
      case '<': out.append("&lt;"); break;
      case '>': out.append("&gt;"); break;
      case '"': out.append("&quot;"); break;
      case '\'': out.append("&apos;"); break;
      default: out.push_back(c);
    }
  }
  if (out.size() == s.size()) return input;
  return Value(out);
}

Result<Value> f_addslashes(const Value& input, const Args&, Budget& budget) {
  SINDRI_STRING_INPUT(s, "addslashes");
  std::string out;
  out.reserve(s.size() + 8);
  for (char c : s) {
    if (c == '\\' || c == '"' || c == '\'') out.push_back('\\');
    out.push_back(c);
  }
  if (out.size() == s.size()) return input;
  return Value(out);
}

Result<Value> f_split(const Value& input, const Args& args, Budget& budget) {
  SINDRI_STRING_INPUT(s, "split");
  SINDRI_TRY(pat, pat_arg(args, "split", budget));
  Array parts;
  if (pat.empty()) {
    const size_t count = count_chars(s) + 2;
    if (!budget.fits_list(count)) return Budget::stopped();
    parts.reserve(count);
    parts.emplace_back("");
    size_t i = 0;
    while (i < s.size()) {
      size_t start = i;
      next_cp(s, i);
      parts.emplace_back(s.substr(start, i - start));
    }
    parts.emplace_back("");
    if (!budget.charge(parts.size())) return Budget::stopped();
    return Value(std::move(parts));
  }
  size_t pos = 0;
  while (true) {
    size_t hit = find_text(s, pat, pos);
    if (hit == std::string_view::npos) break;
    if (!budget.fits_list(parts.size() + 2)) return Budget::stopped();  // this part and the last
    parts.emplace_back(s.substr(pos, hit - pos));
    pos = hit + pat.size();
  }
  parts.emplace_back(s.substr(pos));
  if (!budget.charge(parts.size())) return Budget::stopped();
  return Value(std::move(parts));
}

namespace {

// Rust's i64::from_str_radix.
bool parse_i64_radix(std::string_view s, uint32_t base, int64_t& out) {
  if (s.empty()) return false;
  bool neg = false;
  if (s[0] == '+' || s[0] == '-') {
    neg = s[0] == '-';
    s.remove_prefix(1);
    if (s.empty()) return false;
  }
  // Accumulate negatively to reach INT64_MIN.
  int64_t acc = 0;
  for (char c : s) {
    uint32_t d;
    if (c >= '0' && c <= '9') d = static_cast<uint32_t>(c - '0');
    else if (c >= 'a' && c <= 'z') d = static_cast<uint32_t>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'Z') d = static_cast<uint32_t>(c - 'A' + 10);
    else return false;
    if (d >= base) return false;
    if (__builtin_mul_overflow(acc, static_cast<int64_t>(base), &acc)) return false;
    if (__builtin_sub_overflow(acc, static_cast<int64_t>(d), &acc)) return false;
  }
  if (!neg) {
    if (acc == INT64_MIN) return false;
    acc = -acc;
  }
  out = acc;
  return true;
}

std::string_view strip_all_prefix(std::string_view s, std::string_view p) {
  while (s.substr(0, p.size()) == p) s.remove_prefix(p.size());
  return s;
}

}  // namespace

Result<Value> f_int(const Value& input, const Args& args, Budget& budget) {
  int64_t def = 0;
  if (const Value* d = args.find("default")) {
    if (!d->is_int()) return incorrect_arg("int", "default", *d, "i64");
    def = d->get_int();
  }
  uint32_t base = 10;
  if (const Value* b = args.find("base")) {
    if (!b->is_int() || b->get_int() < 0 || b->get_int() > UINT32_MAX) return incorrect_arg("int", "base", *b, "u32");
    base = static_cast<uint32_t>(b->get_int());
  }
  switch (input.kind()) {
    case Value::Kind::String: {
      if (!budget.charge(input.get_string().size())) return Budget::stopped();
      if (base < 2 || base > 36) {
        return Error{"from_str_radix_int: must lie in the range `[2, 36]` - found " + std::to_string(base)};
      }
      std::string_view s = rust_trim(input.get_string());
      if (base == 2) s = strip_all_prefix(s, "0b");
      else if (base == 8) s = strip_all_prefix(s, "0o");
      else if (base == 16) s = strip_all_prefix(s, "0x");
      int64_t v;
      if (parse_i64_radix(s, base, v)) return Value(v);
      if (s.find('.') != std::string_view::npos) {
        double f;
        if (parse_rust_f64(s, f)) return Value(f64_to_i64(f));
      }
      return Value(def);
    }
    case Value::Kind::Int:
      return Value(f64_to_i64(static_cast<double>(input.get_int())));
    case Value::Kind::Float:
      return Value(f64_to_i64(input.get_float()));
    default:
      return Error{"Filter `int` received an unexpected type"};
  }
}

Result<Value> f_float(const Value& input, const Args& args, Budget& budget) {
  double def = 0.0;
  if (const Value* d = args.find("default")) {
    if (!as_f64(*d, def)) return incorrect_arg("float", "default", *d, "f64");
  }
  switch (input.kind()) {
    case Value::Kind::String: {
      if (!budget.charge(input.get_string().size())) return Budget::stopped();
      double f;
      if (!parse_rust_f64(rust_trim(input.get_string()), f)) f = def;
      return float_value(f);
    }
    case Value::Kind::Int:
      return Value(static_cast<double>(input.get_int()));
    case Value::Kind::Float:
      return input;
    default:
      return Error{"Filter `float` received an unexpected type"};
  }
}

Result<Value> f_safe(const Value& input, const Args&, Budget&) { return input; }
Result<Value> f_default(const Value& input, const Args&, Budget&) { return input; }

}  // namespace sindri::tera::builtins
