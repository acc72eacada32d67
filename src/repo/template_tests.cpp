#include "repo/template_tests.hpp"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "repo/located_document.hpp"
#include "repo/sync.hpp"
#include "repo/template.hpp"
#include "value/file_text.hpp"
#include "value/pointer.hpp"

namespace sindri::repo {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kSettingsFile = "settings.yaml";
constexpr std::string_view kExpectedDirectory = "expected";

// A directory of its own for one case, removed with everything in it.
class Scratch {
 public:
  static Result<Scratch> make() {
    std::string pattern = (fs::temp_directory_path() / "sindri-template-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) return make_error("cannot create a scratch directory " + pattern);
    return Scratch(pattern);
  }
  Scratch(Scratch&& other) noexcept : path_(std::exchange(other.path_, {})) {}
  Scratch(const Scratch&) = delete;
  ~Scratch() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);  // symlinks are removed, never followed
  }
  const fs::path& path() const { return path_; }

 private:
  explicit Scratch(fs::path path) : path_(std::move(path)) {}
  fs::path path_;
};

// The case's settings.yaml: its document (an object) and the templates it
// names, in the order written.
struct CaseSettings {
  LocatedDocument document;
  std::vector<TemplateRequest> templates;
};

Result<CaseSettings> read_settings(const fs::path& case_directory) {
  const fs::path path = case_directory / kSettingsFile;
  SINDRI_TRY(text, read_file_text(path, "test settings"));
  SINDRI_TRY(document, parse_located_yaml(text, path.string()));
  if (document.value().is_null()) document.document.value = Object{};
  if (!document.value().is_object()) {
    return make_error(document.where("") + ": " + std::string(kSettingsFile) +
                      " must map template names to their settings, not hold a " + document.value().kind_name());
  }
  Problems problems;
  std::vector<std::pair<std::pair<uint32_t, uint32_t>, TemplateRequest>> written;
  for (const Member& m : document.value().get_object()) {
    const std::string name(m.key.get_string());
    const std::string pointer = pointer_child("", name);
    // Not even null (`name:`): an empty value has no position, and the order
    // written comes from the positions.
    if (!m.value.is_object()) {
      problems.push_back(document.where(pointer) + ": the settings of template `" + name + "` must be a mapping (`" +
                         name + ": {}` for its defaults), not " + m.value.kind_name());
    }
    const YamlPosition* at = document.document.position_of(pointer);
    written.push_back({{at ? at->line : 0, at ? at->column : 0}, TemplateRequest{name, document.where(pointer)}});
  }
  if (!problems.empty()) return problems_error(problems);
  // Objects keep their keys sorted: the order written comes from the positions.
  std::stable_sort(written.begin(), written.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  CaseSettings out{.document = std::move(document), .templates = {}};
  for (auto& [position, request] : written) out.templates.push_back(std::move(request));
  return out;
}

Result<std::vector<RenderedFile>> render_case(const Catalog& catalog, const std::string& template_name,
                                              const fs::path& case_directory, const PlanOptions& options) {
  SINDRI_TRY(settings, read_settings(case_directory));
  SINDRI_TRY(scratch, Scratch::make());
  Project project;
  project.directory = scratch.path() / "project";
  project.root_key = "sindri_templates";
  for (const OpenSource& source : catalog.sources()) project.sources.push_back(source.spec);
  const bool named = std::any_of(settings.templates.begin(), settings.templates.end(),
                                 [&](const TemplateRequest& r) { return r.name == template_name; });
  if (!named) project.templates.push_back(TemplateRequest{template_name, settings.document.file});
  for (TemplateRequest& request : settings.templates) project.templates.push_back(std::move(request));
  project.file = std::move(settings.document);
  std::error_code ec;
  fs::create_directories(project.directory, ec);
  if (ec) return make_error("cannot create " + project.directory.string() + ": " + ec.message());

  // Isolated: the always_apply templates of the sources join only when named.
  PlanOptions isolated = options;
  isolated.apply_unlisted_always = false;
  SINDRI_TRY(plan, make_plan(project, catalog, isolated));
  SINDRI_TRY(rendered, render_plan(plan, project));
  std::vector<RenderedFile> mine;
  for (RenderedFile& file : rendered) {
    if (file.template_name == template_name) mine.push_back(std::move(file));
  }
  std::sort(mine.begin(), mine.end(), [](const RenderedFile& a, const RenderedFile& b) { return a.path < b.path; });
  return mine;
}

// Every regular file under expected/, relative with forward slashes, sorted.
std::set<std::string> expected_files(const fs::path& expected) {
  std::set<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(expected, ec)) return out;
  for (auto it = fs::recursive_directory_iterator(expected, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file(ec)) out.insert(it->path().lexically_relative(expected).generic_string());
  }
  return out;
}

std::vector<FileMismatch> compare(const std::vector<RenderedFile>& outputs, const fs::path& expected,
                                  Problems& problems) {
  std::set<std::string> unmatched = expected_files(expected);
  std::map<std::string, FileMismatch> mismatches;
  for (const RenderedFile& file : outputs) {
    if (!unmatched.erase(file.path)) {
      mismatches[file.path] = FileMismatch{FileMismatch::Kind::Missing, file.path, {}, file.bytes};
      continue;
    }
    auto bytes = read_file_text(expected / file.path, "expected file");
    if (!bytes) {
      problems.push_back(bytes.error().message);
    } else if (*bytes != file.bytes) {
      mismatches[file.path] = FileMismatch{FileMismatch::Kind::Differs, file.path, std::move(bytes).value(), file.bytes};
    }
  }
  for (const std::string& path : unmatched) {
    auto bytes = read_file_text(expected / path, "expected file");
    mismatches[path] = FileMismatch{FileMismatch::Kind::Extra, path, bytes ? std::move(bytes).value() : "", {}};
  }
  std::vector<FileMismatch> out;
  for (auto& [path, mismatch] : mismatches) out.push_back(std::move(mismatch));
  return out;
}

// Removes the directories under `root` that removing files left empty.
void remove_empty_directories(const fs::path& root) {
  std::error_code ec;
  std::vector<fs::path> directories;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) directories.push_back(it->path());
  }
  // Deepest first, so that a parent is empty once its children are gone.
  std::sort(directories.rbegin(), directories.rend());
  for (const fs::path& directory : directories) {
    if (fs::is_empty(directory, ec)) fs::remove(directory, ec);
  }
}

}  // namespace

Result<Catalog> repository_catalog(const fs::path& given) {
  std::error_code ec;
  if (!fs::is_directory(given, ec)) return make_error("template repository " + given.string() + ": no directory");
  // Absolute, as a project's sources are: hooks run in another directory.
  const fs::path directory = fs::absolute(given, ec).lexically_normal();
  SourceSpec spec{.type = SourceSpec::Type::Filesystem,
                  .location = directory.string(),
                  .ref = {},
                  .trusted = true,
                  .where = directory.string()};
  std::vector<OpenSource> sources;
  sources.push_back(OpenSource{.spec = std::move(spec), .directory = directory, .hooks_trusted = true});
  return Catalog(std::move(sources));
}

Result<std::vector<TemplateLocation>> chosen_templates(const Catalog& catalog, const std::vector<std::string>& names) {
  if (names.empty()) return catalog.every_template();
  std::vector<TemplateLocation> out;
  Problems problems;
  for (const std::string& name : names) {
    const bool repeated = std::any_of(out.begin(), out.end(), [&](const TemplateLocation& l) { return l.name == name; });
    if (repeated) continue;
    if (auto found = catalog.locate(name)) {
      out.push_back(std::move(*found));
      continue;
    }
    std::string searched;
    for (const OpenSource& source : catalog.sources()) searched += (searched.empty() ? "" : ", ") + source.spec.describe();
    problems.push_back("no template `" + name + "` in the template sources (" + searched + ")");
  }
  if (!problems.empty()) return problems_error(problems);
  return out;
}

Result<std::vector<fs::path>> test_cases(const TemplateLocation& location) {
  const fs::path tests = location.directory / "tests";
  std::error_code ec;
  // A link could make a case print, or --write-expected overwrite, any file
  // of this machine: none is followed, each is named.
  Problems links;
  if (fs::is_symlink(fs::symlink_status(tests, ec))) {
    links.push_back(tests.string());
  } else if (fs::is_directory(tests, ec)) {
    for (auto it = fs::recursive_directory_iterator(tests, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (it->is_symlink(ec)) links.push_back(it->path().string());
    }
  }
  if (!links.empty()) {
    std::sort(links.begin(), links.end());
    for (std::string& link : links) link += ": a template's tests cannot hold a symlink (it could read or overwrite any file)";
    return problems_error(links);
  }
  std::vector<fs::path> out;
  for (auto it = fs::directory_iterator(tests, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (it->is_directory(ec)) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

CaseResult run_test_case(const Catalog& catalog, const TemplateLocation& location, const fs::path& case_directory,
                         const PlanOptions& options) {
  CaseResult result{.template_name = location.name,
                    .name = case_directory.filename().string(),
                    .directory = case_directory,
                    .outputs = {},
                    .mismatches = {},
                    .problems = {}};
  auto outputs = render_case(catalog, location.name, case_directory, options);
  if (!outputs) {
    result.problems = problems_of(outputs.error());
    return result;
  }
  result.outputs = std::move(outputs).value();
  result.mismatches = compare(result.outputs, case_directory / kExpectedDirectory, result.problems);
  return result;
}

Result<ExpectedWrite> write_expected(const CaseResult& result) {
  const fs::path expected = result.directory / kExpectedDirectory;
  if (!result.problems.empty()) {
    return make_error("case " + result.template_name + "/" + result.name + " does not render, so " + expected.string() +
                      " is left as it is");
  }
  std::error_code ec;
  fs::create_directories(expected, ec);
  if (ec) return make_error("cannot create " + expected.string() + ": " + ec.message());
  std::vector<RenderedFile> files = result.outputs;
  // Every expected file is written, files_init ones included.
  for (RenderedFile& file : files) file.init_only = false;
  SINDRI_TRY(synced, sync_files(expected, files));
  ExpectedWrite out;
  for (const SyncedFile& file : synced) {
    if (file.change == FileChange::Created) out.created.push_back(file.path);
    if (file.change == FileChange::Updated) out.updated.push_back(file.path);
  }
  for (const std::string& path : expected_files(expected)) {
    const bool written = std::any_of(files.begin(), files.end(), [&](const RenderedFile& f) { return f.path == path; });
    if (written) continue;
    if (!fs::remove(expected / path, ec)) return make_error("cannot remove " + (expected / path).string() + ": " + ec.message());
    out.removed.push_back(path);
  }
  remove_empty_directories(expected);
  return out;
}

}  // namespace sindri::repo
