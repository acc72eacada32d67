// PCRE2 behind regex.hpp.

#define PCRE2_CODE_UNIT_WIDTH 8
#include "tera/builtins/regex.hpp"

#include <pcre2.h>

#include <memory>
#include <string>
#include <unordered_map>

namespace sindri::tera::builtins::regex {

namespace {

constexpr uint32_t kMatchLimit = 5'000'000;
constexpr uint32_t kDepthLimit = 10'000;
constexpr size_t kCacheSize = 64;

struct CodeDeleter {
  void operator()(pcre2_code* c) const { pcre2_code_free(c); }
};
struct MatchDataDeleter {
  void operator()(pcre2_match_data* m) const { pcre2_match_data_free(m); }
};
struct MatchContextDeleter {
  void operator()(pcre2_match_context* m) const { pcre2_match_context_free(m); }
};
struct CompileContextDeleter {
  void operator()(pcre2_compile_context* m) const { pcre2_compile_context_free(m); }
};

struct ThreadState {
  std::unordered_map<std::string, std::unique_ptr<pcre2_code, CodeDeleter>> cache;
  std::unique_ptr<pcre2_match_data, MatchDataDeleter> data{pcre2_match_data_create(1, nullptr)};
  std::unique_ptr<pcre2_match_context, MatchContextDeleter> mctx{pcre2_match_context_create(nullptr)};
  std::unique_ptr<pcre2_compile_context, CompileContextDeleter> cctx{pcre2_compile_context_create(nullptr)};
  ThreadState() {
    pcre2_set_match_limit(mctx.get(), kMatchLimit);
    pcre2_set_depth_limit(mctx.get(), kDepthLimit);
    pcre2_set_newline(cctx.get(), PCRE2_NEWLINE_LF);
  }
};

std::string pcre2_message(int code) {
  PCRE2_UCHAR buf[256];
  int n = pcre2_get_error_message(code, buf, sizeof buf);
  if (n < 0) return "unknown error";
  return std::string(reinterpret_cast<const char*>(buf), static_cast<size_t>(n));
}

}  // namespace

Result<bool> is_match(std::string_view pattern, std::string_view subject) {
  thread_local ThreadState st;
  pcre2_code* code = nullptr;
  auto it = st.cache.find(std::string(pattern));
  if (it != st.cache.end()) {
    code = it->second.get();
  } else {
    int err = 0;
    PCRE2_SIZE erroff = 0;
    code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                         PCRE2_UTF | PCRE2_UCP | PCRE2_DOLLAR_ENDONLY, &err, &erroff, st.cctx.get());
    if (!code) {
      return Error{"regex parse error at offset " + std::to_string(erroff) + ": " + pcre2_message(err)};
    }
    if (st.cache.size() >= kCacheSize) st.cache.clear();
    st.cache.emplace(std::string(pattern), std::unique_ptr<pcre2_code, CodeDeleter>(code));
  }
  int rc = pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(), 0, 0,
                       st.data.get(), st.mctx.get());
  if (rc >= 0) return true;
  if (rc == PCRE2_ERROR_NOMATCH) return false;
  return Error{"regex match failed: " + pcre2_message(rc)};
}

}  // namespace sindri::tera::builtins::regex
