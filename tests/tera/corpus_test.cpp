// Renders every conformance case and compares with Tera's output byte for
// byte, or checks that Tera's kind of error is reported.
//
// A case folder holds template.tera, context.json and expected.out or
// expected.error (`parse_error` / `render_error`). A multi-template case has
// templates/ and a file `main` naming the one to render.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tera/tera.hpp"
#include "value/json.hpp"

namespace fs = std::filesystem;
using namespace sindri;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

struct Case {
  std::string name;
  fs::path dir;
};

std::vector<Case> cases_under(const fs::path& root) {
  std::vector<Case> out;
  if (!fs::exists(root)) return out;
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
  for (const char* root : {SINDRI_SHARED_CORPUS "/tera", SINDRI_SHARED_CORPUS "/tera-dir", SINDRI_TESTS_DIR "/tera/cases",
                           SINDRI_TESTS_DIR "/tera/cases-dir", SINDRI_TESTS_DIR "/tera/cases-1.20"}) {
    auto found = cases_under(root);
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

// Either the output or "parse_error"/"render_error" with the message.
struct Outcome {
  std::string output;
  std::string error_kind;
  std::string message;
};

Outcome run_case(const fs::path& dir) {
  Outcome o;
  auto context = parse_json(read_file(dir / "context.json"));
  if (!context) {
    o.error_kind = "bad_context";
    o.message = context.error().describe();
    return o;
  }
  auto record = [&](const tera::TemplateError& e) {
    o.error_kind = e.kind == tera::ErrorKind::Parse ? "parse_error" : "render_error";
    o.message = e.describe();
  };
  if (fs::exists(dir / "templates")) {
    tera::Environment env;
    fs::path root = dir / "templates";
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      if (!entry.is_regular_file()) continue;
      auto added = env.add(fs::relative(entry.path(), root).generic_string(), read_file(entry.path()));
      if (!added) {
        record(added.error());
        return o;
      }
    }
    auto built = env.build();
    if (!built) {
      record(built.error().front());
      return o;
    }
    auto out = env.render(trim(read_file(dir / "main")), *context);
    if (!out) {
      record(out.error());
    } else {
      o.output = *out;
    }
    return o;
  }
  auto tpl = tera::compile("template.tera", read_file(dir / "template.tera"));
  if (!tpl) {
    record(tpl.error());
    return o;
  }
  auto out = tera::render(**tpl, *context);
  if (!out) {
    record(out.error());
  } else {
    o.output = *out;
  }
  return o;
}

class Conformance : public ::testing::TestWithParam<Case> {};

TEST_P(Conformance, MatchesTera) {
  const fs::path& dir = GetParam().dir;
  Outcome o = run_case(dir);
  if (fs::exists(dir / "expected.error")) {
    std::string expected = trim(read_file(dir / "expected.error"));
    EXPECT_EQ(o.error_kind, expected) << "output was:\n" << o.output;
    if (!o.error_kind.empty()) {
      EXPECT_FALSE(o.message.empty());
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

TEST(Conformance, CorpusIsPresent) { EXPECT_GT(all_cases().size(), 130u); }

}  // namespace
