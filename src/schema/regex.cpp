// PCRE2 behind regex.hpp.

#define PCRE2_CODE_UNIT_WIDTH 8
#include "schema/regex.hpp"

#include <pcre2.h>

#include <string>

namespace sindri::schema {

namespace {

constexpr uint32_t kMatchLimit = 1'000'000;
constexpr uint32_t kDepthLimit = 10'000;

std::string pcre2_message(int code) {
  PCRE2_UCHAR buf[256];
  int n = pcre2_get_error_message(code, buf, sizeof buf);
  if (n < 0) return "unknown error";
  return std::string(reinterpret_cast<const char*>(buf), static_cast<size_t>(n));
}

// One match block per thread, shared by every pattern: matching allocates
// nothing.
struct MatchState {
  pcre2_match_data* data = pcre2_match_data_create(1, nullptr);
  pcre2_match_context* context = pcre2_match_context_create(nullptr);
  MatchState() {
    pcre2_set_match_limit(context, kMatchLimit);
    pcre2_set_depth_limit(context, kDepthLimit);
  }
  ~MatchState() {
    pcre2_match_data_free(data);
    pcre2_match_context_free(context);
  }
  MatchState(const MatchState&) = delete;
  MatchState& operator=(const MatchState&) = delete;
};

bool is_ascii(std::string_view text) {
  for (unsigned char c : text) {
    if (c >= 0x80) return false;
  }
  return true;
}

}  // namespace

struct Regex::Code {
  pcre2_code* code = nullptr;
  bool jit = false;  // pcre2_jit_compile succeeded
  ~Code() { pcre2_code_free(code); }
};

Result<Regex> Regex::compile(std::string_view pattern) {
  int err = 0;
  PCRE2_SIZE erroff = 0;
  // ECMA-262 without the `u` flag: \d, \w and \b are ASCII (no PCRE2_UCP),
  // `$` only at the very end; UTF so that `.` is one code point.
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                   PCRE2_UTF | PCRE2_DOLLAR_ENDONLY, &err, &erroff, nullptr);
  if (!code) {
    return make_error("invalid regular expression `" + std::string(pattern) + "` at offset " +
                      std::to_string(erroff) + ": " + pcre2_message(err));
  }
  auto compiled = std::make_shared<Code>();
  compiled->code = code;
  compiled->jit = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
  Regex regex;
  regex.pattern_ = std::string(pattern);
  regex.code_ = std::move(compiled);
  return regex;
}

bool Regex::search(std::string_view subject) const {
  thread_local MatchState state;
  auto* text = reinterpret_cast<PCRE2_SPTR>(subject.data());
  // pcre2_jit_match skips pcre2_match's checks, the subject's UTF-8 among
  // them, which an ASCII subject passes anyway; anything else is checked.
  if (code_->jit && is_ascii(subject)) {
    return pcre2_jit_match(code_->code, text, subject.size(), 0, 0, state.data, state.context) >= 0;
  }
  return pcre2_match(code_->code, text, subject.size(), 0, 0, state.data, state.context) >= 0;
}

}  // namespace sindri::schema
