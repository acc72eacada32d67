// ICU behind the tiny interface of unicode.hpp.

#include "tera/builtins/unicode.hpp"

#include <unicode/brkiter.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/ustring.h>
#include <unicode/utext.h>

#include <memory>

namespace sindri::tera::builtins::unicode {

namespace {

bool is_ascii(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

template <bool Upper>
void append_case(std::string& out, std::string_view s) {
  if (is_ascii(s)) {
    size_t base = out.size();
    out.append(s);
    for (size_t i = base; i < out.size(); ++i) {
      char c = out[i];
      if (Upper && c >= 'a' && c <= 'z') out[i] = static_cast<char>(c - 32);
      if (!Upper && c >= 'A' && c <= 'Z') out[i] = static_cast<char>(c + 32);
    }
    return;
  }
  icu::UnicodeString u = icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), static_cast<int32_t>(s.size())));
  if (Upper) {
    u.toUpper(icu::Locale::getRoot());
  } else {
    u.toLower(icu::Locale::getRoot());
  }
  u.toUTF8String(out);
}

struct Breaker {
  std::unique_ptr<icu::BreakIterator> it;
  Breaker() {
    UErrorCode status = U_ZERO_ERROR;
    it.reset(icu::BreakIterator::createCharacterInstance(icu::Locale::getRoot(), status));
    if (U_FAILURE(status)) it.reset();
  }
};

icu::BreakIterator* breaker_for(std::string_view s, UText* ut) {
  thread_local Breaker b;
  if (!b.it) return nullptr;
  UErrorCode status = U_ZERO_ERROR;
  utext_openUTF8(ut, s.data(), static_cast<int64_t>(s.size()), &status);
  if (U_FAILURE(status)) return nullptr;
  b.it->setText(ut, status);
  if (U_FAILURE(status)) return nullptr;
  return b.it.get();
}

}  // namespace

void append_upper(std::string& out, std::string_view s) { append_case<true>(out, s); }
void append_lower(std::string& out, std::string_view s) { append_case<false>(out, s); }

std::vector<size_t> grapheme_starts(std::string_view s) {
  std::vector<size_t> starts;
  if (s.empty()) return starts;
  UText ut = UTEXT_INITIALIZER;
  icu::BreakIterator* it = breaker_for(s, &ut);
  if (!it) {
    for (size_t i = 0; i < s.size(); ++i) {
      if ((static_cast<unsigned char>(s[i]) & 0xc0) != 0x80) starts.push_back(i);
    }
    return starts;
  }
  for (int32_t p = it->first(); p != icu::BreakIterator::DONE; p = it->next()) {
    if (static_cast<size_t>(p) < s.size()) starts.push_back(static_cast<size_t>(p));
  }
  utext_close(&ut);
  return starts;
}

size_t grapheme_offset(std::string_view s, size_t n) {
  if (s.empty()) return std::string_view::npos;
  UText ut = UTEXT_INITIALIZER;
  icu::BreakIterator* it = breaker_for(s, &ut);
  size_t result = std::string_view::npos;
  if (!it) {
    size_t count = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      if ((static_cast<unsigned char>(s[i]) & 0xc0) != 0x80) {
        if (count == n) return i;
        ++count;
      }
    }
    return result;
  }
  size_t count = 0;
  for (int32_t p = it->first(); p != icu::BreakIterator::DONE; p = it->next()) {
    if (static_cast<size_t>(p) >= s.size()) break;
    if (count == n) {
      result = static_cast<size_t>(p);
      break;
    }
    ++count;
  }
  utext_close(&ut);
  return result;
}

bool is_word_char(char32_t c) {
  if (c < 0x80) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  }
  UChar32 u = static_cast<UChar32>(c);
  if (u_hasBinaryProperty(u, UCHAR_ALPHABETIC) || u_hasBinaryProperty(u, UCHAR_JOIN_CONTROL)) return true;
  int32_t mask = U_GET_GC_MASK(u);
  return (mask & (U_GC_M_MASK | U_GC_ND_MASK | U_GC_PC_MASK)) != 0;
}


}  // namespace sindri::tera::builtins::unicode
