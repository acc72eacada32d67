// sindri repo test [NAME...] [--write-expected] [--repository DIR] [--project DIR] [--update] [--trust-hooks]
//
// For template authors: every <template>/tests/<case>/ of the templates named
// (else of every template of the catalog) rendered from its settings.yaml and
// compared with its expected/ files. One line per case, `ok   T/CASE` or
// `FAIL T/CASE` and what differs; exit 0 when every case passes, 1 when one
// fails, 2 on a usage error. --write-expected makes expected/ the current
// output instead.

#include <memory>
#include <string>
#include <vector>

#include "cli/errors.hpp"
#include "cli/io.hpp"
#include "cli/repo_common.hpp"
#include "repo/template_tests.hpp"
#include "roles/unified_diff.hpp"

namespace sindri::cli {

namespace {

struct TestArgs : RepoOptions {
  std::vector<std::string> names;
  std::string repository;
  bool write_expected = false;
};

std::string case_name(const repo::CaseResult& result) { return result.template_name + "/" + result.name; }

// What failed in a case, after its FAIL line.
std::string failure_text(const repo::CaseResult& result) {
  std::string out;
  for (const std::string& problem : result.problems) out += "  " + problem + "\n";
  for (const repo::FileMismatch& mismatch : result.mismatches) {
    switch (mismatch.kind) {
      case repo::FileMismatch::Kind::Differs:
        out += roles::unified_diff(mismatch.expected, mismatch.actual, "expected/" + mismatch.path,
                                   "rendered/" + mismatch.path);
        break;
      case repo::FileMismatch::Kind::Missing:
        out += "  " + mismatch.path + ": written by the template, missing from expected/\n";
        break;
      case repo::FileMismatch::Kind::Extra:
        out += "  " + mismatch.path + ": in expected/, not written by the template\n";
        break;
    }
  }
  return out;
}

std::string written_text(const repo::CaseResult& result, const repo::ExpectedWrite& written) {
  const std::string expected = (result.directory / "expected").string() + "/";
  std::string out;
  for (const std::string& path : written.created) out += "created " + expected + path + "\n";
  for (const std::string& path : written.updated) out += "updated " + expected + path + "\n";
  for (const std::string& path : written.removed) out += "removed " + expected + path + "\n";
  return out;
}

Result<int> run_test(const TestArgs& args) {
  SINDRI_TRY(catalog, authoring_catalog(args, args.repository));
  SINDRI_TRY(locations, repo::chosen_templates(catalog, args.names));
  if (args.write_expected) SINDRI_CHECK(refuse_cached_clones(locations, "expected files"));
  const repo::PlanOptions options = plan_options(args);
  size_t passed = 0, failed = 0;
  for (const repo::TemplateLocation& location : locations) {
    auto listed = repo::test_cases(location);
    if (!listed) {
      std::string out = "FAIL " + location.name + "\n";
      for (const std::string& problem : repo::problems_of(listed.error())) out += "  " + problem + "\n";
      if (!write_stdout(out)) return 1;
      ++failed;
      continue;
    }
    const std::vector<std::filesystem::path>& cases = *listed;
    if (cases.empty() && !args.names.empty()) {
      print_note("template `" + location.name + "` has no tests (no " + (location.directory / "tests").string() +
                 "/CASE/ directories)");
    }
    for (const auto& case_directory : cases) {
      const repo::CaseResult result = repo::run_test_case(catalog, location, case_directory, options);
      std::string out;
      if (args.write_expected) {
        auto written = repo::write_expected(result);
        if (written) {
          out = written_text(result, *written);
          ++passed;
        } else {
          out = "FAIL " + case_name(result) + "\n" + failure_text(result);
          ++failed;
        }
      } else if (result.passed()) {
        out = "ok   " + case_name(result) + "\n";
        ++passed;
      } else {
        out = "FAIL " + case_name(result) + "\n" + failure_text(result);
        ++failed;
      }
      if (!write_stdout(out)) return 1;
    }
  }
  const std::string summary = args.write_expected
                                  ? std::to_string(passed) + " written, " + std::to_string(failed) + " failed\n"
                                  : std::to_string(passed) + " passed, " + std::to_string(failed) + " failed\n";
  if (!write_stdout(summary)) return 1;
  return failed == 0 ? 0 : 1;
}

}  // namespace

Verb add_repo_test(CLI::App& repo) {
  auto args = std::make_shared<TestArgs>();
  CLI::App* cmd = repo.add_subcommand(
      "test", "Render each template's tests/<case>/settings.yaml and compare with tests/<case>/expected/");
  cmd->add_option("NAME", args->names, "The templates (their directory names); default: every template");
  cmd->add_flag("--write-expected", args->write_expected, "Make each case's expected/ the current output");
  cmd->add_option("--repository", args->repository,
                  "A template repository directory, taken alone as the source (no project file needed)");
  add_project_options(*cmd, *args);
  add_trust_option(*cmd, *args);
  // An error that is no case's (no project, an unknown template) exits 2, as
  // a usage error does: 1 means a case failed.
  return Verb{cmd, [args] { return finish_repo_verb(run_test(*args), 2); }};
}

}  // namespace sindri::cli
