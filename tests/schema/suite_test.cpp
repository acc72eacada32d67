// The official JSON-Schema-Test-Suite (Debian: json-schema-test-suite).
// Required tests of drafts 4, 6 and 7 must pass except the cases listed in
// known_failures.txt, and at least 99% of them; optional and format tests
// are run and their pass rate printed.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>

#include "schema/schema.hpp"
#include "value/json.hpp"

namespace sindri::schema {
namespace {

namespace fs = std::filesystem;

const fs::path kSuite = "/usr/share/json-schema-test-suite/tests";
const fs::path kTestsDir = SINDRI_TESTS_DIR "/schema";

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

Value read_json(const fs::path& path) {
  auto parsed = parse_json(read_file(path));
  if (!parsed) ADD_FAILURE() << path << ": " << parsed.error().describe();
  return parsed ? *parsed : Value();
}

// The suite's remote documents, served at http://localhost:1234/.
std::vector<std::pair<std::string, Value>> remote_documents() {
  std::vector<std::pair<std::string, Value>> documents;
  fs::path root = kTestsDir / "remotes";
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.path().extension() != ".json") continue;
    documents.emplace_back("http://localhost:1234/" + fs::relative(entry.path(), root).generic_string(),
                           read_json(entry.path()));
  }
  return documents;
}

struct Outcome {
  size_t passed = 0;
  size_t total = 0;
  std::set<std::string> failed;  // "file :: group :: test"
};

// Runs every case of the .json files directly in `dir`, named relative to
// the suite root.
Outcome run_directory(const fs::path& dir, Draft draft) {
  Outcome outcome;
  if (!fs::exists(dir)) return outcome;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  CompileOptions options;
  options.default_draft = draft;
  options.documents = remote_documents();
  for (const fs::path& file : files) {
    std::string file_name = fs::relative(file, kSuite).generic_string();
    Value groups = read_json(file);
    for (const Value& group : groups.get_array()) {
      std::string group_name(group.find("description")->get_string());
      auto compiled = compile_schema(*group.find("schema"), options);
      for (const Value& test : group.find("tests")->get_array()) {
        ++outcome.total;
        bool expected = test.find("valid")->get_bool();
        bool passed = false;
        if (compiled) {
          std::vector<Violation> violations = validate(*compiled, *test.find("data"));
          bool valid = is_valid(*compiled, *test.find("data"));
          // The two paths (all violations, first failure) must agree.
          EXPECT_EQ(valid, violations.empty()) << file_name << " :: " << group_name;
          passed = valid == expected;
        }
        if (passed) {
          ++outcome.passed;
        } else {
          outcome.failed.insert(file_name + " :: " + group_name + " :: " + std::string(test.find("description")->get_string()));
        }
      }
    }
  }
  return outcome;
}

// known_failures.txt: "file :: group :: test :: reason" per line, # comments.
std::set<std::string> known_failures(const std::string& draft_dir) {
  std::set<std::string> known;
  std::istringstream lines(read_file(kTestsDir / "known_failures.txt"));
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#' || line.rfind(draft_dir + "/", 0) != 0) continue;
    size_t reason = line.rfind(" :: ");
    known.insert(line.substr(0, reason));
  }
  return known;
}

double percent(const Outcome& o) { return o.total ? 100.0 * static_cast<double>(o.passed) / static_cast<double>(o.total) : 100.0; }

void check_required(const std::string& draft_dir, Draft draft) {
  ASSERT_TRUE(fs::exists(kSuite)) << "apt-get install json-schema-test-suite";
  Outcome outcome = run_directory(kSuite / draft_dir, draft);
  std::cout << draft_dir << " required: " << outcome.passed << "/" << outcome.total << " (" << percent(outcome)
            << "%)\n";
  EXPECT_GT(outcome.total, 0u);
  EXPECT_GE(percent(outcome), 99.0);
  std::set<std::string> known = known_failures(draft_dir);
  for (const std::string& failure : outcome.failed) {
    EXPECT_TRUE(known.count(failure)) << "fails and is not in known_failures.txt: " << failure;
  }
  for (const std::string& listed : known) {
    EXPECT_TRUE(outcome.failed.count(listed)) << "listed in known_failures.txt but passes (or is gone): " << listed;
  }
}

void report_optional(const std::string& draft_dir, Draft draft) {
  for (const char* sub : {"optional", "optional/format"}) {
    Outcome outcome = run_directory(kSuite / draft_dir / sub, draft);
    if (outcome.total == 0) continue;
    std::cout << draft_dir << " " << sub << ": " << outcome.passed << "/" << outcome.total << " (" << percent(outcome)
              << "%)\n";
    for (const std::string& failure : outcome.failed) std::cout << "  not passed: " << failure << "\n";
  }
}

TEST(SchemaSuite, Draft4Required) { check_required("draft4", Draft::Draft4); }
TEST(SchemaSuite, Draft6Required) { check_required("draft6", Draft::Draft6); }
TEST(SchemaSuite, Draft7Required) { check_required("draft7", Draft::Draft7); }

TEST(SchemaSuite, OptionalAndFormatReport) {
  report_optional("draft4", Draft::Draft4);
  report_optional("draft6", Draft::Draft6);
  report_optional("draft7", Draft::Draft7);
}

}  // namespace
}  // namespace sindri::schema
