// PCRE2 behind regex.hpp.

#define PCRE2_CODE_UNIT_WIDTH 8
#include "tera/builtins/regex.hpp"

#include <pcre2.h>

#include <memory>
#include <string>
#include <unordered_map>

namespace sindri::tera::builtins::regex {

namespace {

// PCRE2 does not tell how much of its match limit a match used, so the
// render's budget pays for the limit: a small one first, which the usual
// pattern does not come near (a few units), then the full one.
constexpr uint32_t kFirstMatchLimit = 1'000;
constexpr uint32_t kMatchLimit = 5'000'000;
constexpr uint32_t kDepthLimit = 10'000;
// PCRE2's own default is 20 GB of backtracking frames; a frame grows with the
// pattern's capture groups, so a long pattern could otherwise take gigabytes.
constexpr uint32_t kHeapLimitKiB = 64 * 1024;
constexpr size_t kCacheSize = 64;
// Longer patterns are compiled for the one match: the cache lives as long as
// its thread, and should not keep megabytes a template built.
constexpr size_t kMaxCachedPattern = 4096;

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
    pcre2_set_depth_limit(mctx.get(), kDepthLimit);
    pcre2_set_heap_limit(mctx.get(), kHeapLimitKiB);
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

Result<bool> is_match(std::string_view pattern, std::string_view subject, Budget& budget) {
  thread_local ThreadState st;
  const bool cached = pattern.size() <= kMaxCachedPattern;
  pcre2_code* code = nullptr;
  std::unique_ptr<pcre2_code, CodeDeleter> uncached;
  auto it = cached ? st.cache.find(std::string(pattern)) : st.cache.end();
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
    if (cached) {
      if (st.cache.size() >= kCacheSize) st.cache.clear();
      st.cache.emplace(std::string(pattern), std::unique_ptr<pcre2_code, CodeDeleter>(code));
    } else {
      uncached.reset(code);
    }
  }
  // Compiling costs about its compiled size; charged whether or not this
  // thread's cache had the pattern, so that the charge does not depend on
  // which thread renders.
  size_t compiled_bytes = 0;
  pcre2_pattern_info(code, PCRE2_INFO_SIZE, &compiled_bytes);
  if (!budget.charge(compiled_bytes)) return Budget::stopped();
  for (uint32_t limit : {kFirstMatchLimit, kMatchLimit}) {
    if (!budget.charge(limit)) return Budget::stopped();
    pcre2_set_match_limit(st.mctx.get(), limit);
    int rc = pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(), 0, 0,
                         st.data.get(), st.mctx.get());
    if (rc >= 0) return true;
    if (rc == PCRE2_ERROR_NOMATCH) return false;
    if (rc != PCRE2_ERROR_MATCHLIMIT || limit == kMatchLimit) return Error{"regex match failed: " + pcre2_message(rc)};
  }
  return false;
}

}  // namespace sindri::tera::builtins::regex
