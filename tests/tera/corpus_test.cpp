// Renders every conformance case and compares with Tera's output byte for
// byte, or checks that Tera's kind of error is reported and, where the stable
// part of Tera's message is known, that Sindri's message holds it.
//
// A case folder holds template.tera, context.json and expected.out or
// expected.error (`parse_error` / `render_error`), with an optional
// expected.message. A multi-template case has templates/ and a file `main`
// naming the one to render.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "case_runner.hpp"

namespace fs = std::filesystem;
using namespace sindri::tera_cases;

namespace {

// Every folder of cases with the number of cases it holds: a folder that is
// missing or loses cases fails CorpusIsPresent. Adding a case means raising
// its count here.
struct CaseFolder {
  const char* path;
  size_t cases;
};
constexpr CaseFolder kCaseFolders[] = {
    {SINDRI_SHARED_CORPUS "/tera", 131},
    {SINDRI_SHARED_CORPUS "/tera-dir", 1},
    {SINDRI_TESTS_DIR "/tera/cases", 328},
    {SINDRI_TESTS_DIR "/tera/cases-dir", 73},
    {SINDRI_TESTS_DIR "/tera/cases-1.20", 12},
};

std::string trim_end(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

struct Case {
  std::string name;
  fs::path dir;
};

std::vector<Case> cases_under(const fs::path& root) {
  std::vector<Case> out;
  if (!fs::is_directory(root)) return out;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (!entry.is_directory()) continue;
    std::string name = root.filename().string() + "/" + entry.path().filename().string();
    out.push_back({name, entry.path()});
  }
  std::sort(out.begin(), out.end(), [](const Case& a, const Case& b) { return a.name < b.name; });
  return out;
}

std::vector<Case> all_cases() {
  std::vector<Case> out;
  for (const CaseFolder& folder : kCaseFolders) {
    auto found = cases_under(folder.path);
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

// The stable part of Tera's message for an error case: its expected.message,
// or, for the shared corpus that is not ours to write,
// shared_corpus_messages/FOLDER/CASE.message. Empty when there is none.
fs::path tera_message_file(const Case& c) {
  for (fs::path candidate : {c.dir / "expected.message",
                             fs::path(SINDRI_TESTS_DIR "/tera/shared_corpus_messages") / (c.name + ".message")}) {
    if (fs::exists(candidate)) return candidate;
  }
  return {};
}

class Conformance : public ::testing::TestWithParam<Case> {};

TEST_P(Conformance, MatchesTera) {
  const fs::path& dir = GetParam().dir;
  Outcome o = run_case(dir);
  if (fs::exists(dir / "expected.error")) {
    std::string expected = trim_end(read_file(dir / "expected.error"));
    EXPECT_EQ(o.error_kind, expected) << "output was:\n" << o.output;
    if (!o.error_kind.empty()) {
      EXPECT_FALSE(o.message.empty());
    }
    fs::path message_file = tera_message_file(GetParam());
    if (!message_file.empty()) {
      std::string tera_message = trim_end(read_file(message_file));
      EXPECT_NE(o.message.find(tera_message), std::string::npos)
          << "Tera's message: " << tera_message << "\nSindri's: " << o.message;
    }
  } else {
    ASSERT_EQ(o.error_kind, "") << o.message;
    EXPECT_EQ(o.output, read_file(dir / "expected.out"));
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, Conformance, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string n = info.param.name;
                           for (char& c : n) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });

TEST(Conformance, CorpusIsPresent) {
  for (const CaseFolder& folder : kCaseFolders) {
    EXPECT_TRUE(fs::is_directory(folder.path)) << folder.path << " is missing";
    EXPECT_EQ(cases_under(folder.path).size(), folder.cases) << "cases in " << folder.path;
  }
}

}  // namespace
