#pragma once
// Template tests, for template authors: every `<template>/tests/<case>/`
// directory is a case. Its `settings.yaml` maps template names to their
// settings, as the settings part of a project file does; the case's project
// applies those templates in the order written, the template under test
// first when it is not among them, and no always_apply template of the
// catalog but the one under test (a case stays isolated). Its `expected/**`
// holds exactly the files the template under test writes, at their output
// paths, compared byte for byte.
//
// Also what `repo docs` and `repo test` share: a repository taken alone as a
// catalog, and the templates chosen by name.

#include <filesystem>
#include <string>
#include <vector>

#include "repo/catalog.hpp"
#include "repo/plan.hpp"
#include "repo/render.hpp"

namespace sindri::repo {

// A template author's repository (DIR) as the only, filesystem, source; an
// error when it is not a directory.
Result<Catalog> repository_catalog(const std::filesystem::path& directory);

// The templates `names` in the catalog, or every template of it when
// `names` is empty; an error naming each unknown name.
Result<std::vector<TemplateLocation>> chosen_templates(const Catalog& catalog, const std::vector<std::string>& names);

// The case directories of a template (`tests/*/`), sorted; none without tests/.
// An error naming each symlink under tests/ (none is followed).
Result<std::vector<std::filesystem::path>> test_cases(const TemplateLocation& location);

struct FileMismatch {
  enum class Kind {
    Differs,  // written and expected, with other bytes
    Missing,  // written by the template, missing from expected/
    Extra,    // in expected/, not written by the template
  };
  Kind kind = Kind::Differs;
  std::string path;      // the output path, relative to expected/
  std::string expected;  // the bytes in expected/ (Differs, Extra)
  std::string actual;    // the bytes rendered (Differs, Missing)
};

struct CaseResult {
  std::string template_name;
  std::string name;                 // the case's directory name
  std::filesystem::path directory;  // the case's directory
  std::vector<RenderedFile> outputs;        // the template under test's files, by path
  std::vector<FileMismatch> mismatches;     // by path
  Problems problems;  // the case could not render: settings.yaml, the lifecycle, Tera

  bool passed() const { return problems.empty() && mismatches.empty(); }
};

// Renders a case (one test_cases gave: it follows no symlink check of its
// own) and compares its outputs with expected/.
CaseResult run_test_case(const Catalog& catalog, const TemplateLocation& location,
                         const std::filesystem::path& case_directory, const PlanOptions& options = {});

struct ExpectedWrite {
  std::vector<std::string> created, updated, removed;  // paths relative to expected/
};

// Makes the case's expected/ hold exactly its current outputs (stale files
// removed). Refused for a case that could not render.
Result<ExpectedWrite> write_expected(const CaseResult& result);

}  // namespace sindri::repo
