// Adding and removing template sources as text edits: each test compares the
// whole file, so that a comment, blank line or key moved anywhere fails it.

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "repo/project_edit.hpp"
#include "repo/repo_fixture.hpp"

namespace sindri::repo {
namespace {

using namespace repo_testing;

Project parsed(std::string_view text, std::string_view root_key = "sindri_templates") {
  auto project = parse_project(text, root_key == "pdk_template" ? ".sync.yml" : "sindri-templates.yaml",
                               "/work/project", root_key);
  EXPECT_TRUE(project.ok()) << project.error().message;
  return project.ok() ? std::move(project).value() : Project{};
}

NewSource source(std::string_view type, const std::vector<std::string>& arguments = {}) {
  auto out = new_source(type, arguments);
  EXPECT_TRUE(out.ok()) << out.error().message;
  return out.ok() ? std::move(out).value() : NewSource{};
}

// The text after adding; fails the test (and gives "") on an error.
std::string added(std::string_view text, const NewSource& new_one, bool first = false,
                  std::string_view root_key = "sindri_templates") {
  auto edited = add_source(parsed(text, root_key), text, new_one, first);
  EXPECT_TRUE(edited.ok()) << edited.error().message;
  return edited.ok() ? edited->text : "";
}

std::string add_error(std::string_view text, const NewSource& new_one) {
  auto edited = add_source(parsed(text), text, new_one, false);
  EXPECT_FALSE(edited.ok()) << edited->text;
  return edited.ok() ? "" : edited.error().message;
}

std::string removed(std::string_view text, std::string_view which) {
  const Project project = parsed(text);
  auto index = find_listed_source(project, which);
  EXPECT_TRUE(index.ok()) << index.error().message;
  if (!index.ok()) return "";
  auto edited = remove_source(project, text, *index);
  EXPECT_TRUE(edited.ok()) << edited.error().message;
  return edited.ok() ? edited->text : "";
}

std::string find_error(std::string_view text, std::string_view which) {
  auto index = find_listed_source(parsed(text), which);
  EXPECT_FALSE(index.ok()) << *index;
  return index.ok() ? "" : index.error().message;
}

std::string argument_error(std::string_view type, const std::vector<std::string>& arguments) {
  auto out = new_source(type, arguments);
  EXPECT_FALSE(out.ok());
  return out.ok() ? "" : out.error().message;
}

const std::string kScalars = R"(# The project.
sindri_templates:
  version: 2   # pinned
  template_sources:
    - default
    # spare sources go here

  templates:
    - web
web:
  title: Shop   # kept
)";

TEST(ProjectEdit, AppendsToABlockOfScalarsBeforeTheCommentThatFollows) {
  EXPECT_EQ(added(kScalars, source("git", {"location=https://example.com/t.git", "ref=v1", "trusted=true"})),
            R"(# The project.
sindri_templates:
  version: 2   # pinned
  template_sources:
    - default
    - type: git
      location: https://example.com/t.git
      ref: v1
      trusted: true
    # spare sources go here

  templates:
    - web
web:
  title: Shop   # kept
)");
}

TEST(ProjectEdit, FirstPutsTheSourceBeforeTheOthers) {
  const NewSource local = source("filesystem", {"location=../templates"});
  EXPECT_EQ(added(kScalars, local, true), R"(# The project.
sindri_templates:
  version: 2   # pinned
  template_sources:
    - type: filesystem
      location: ../templates
    - default
    # spare sources go here

  templates:
    - web
web:
  title: Shop   # kept
)");
  auto edited = add_source(parsed(kScalars), kScalars, local, true);
  ASSERT_TRUE(edited.ok());
  EXPECT_EQ(edited->position, 1u);
  EXPECT_EQ(add_source(parsed(kScalars), kScalars, local, false)->position, 2u);
}

const std::string kMappings = R"(sindri_templates:
  version: 2
  template_sources:
  - type: filesystem   # ours
    location: ../templates

  # the shared one
  - type: git
    location: git@example.com:org/t.git
    ref: main
  templates: [web]
)";

TEST(ProjectEdit, AppendsToABlockOfMappingsAfterTheLastItemsLastLine) {
  EXPECT_EQ(added(kMappings, source("default")), R"(sindri_templates:
  version: 2
  template_sources:
  - type: filesystem   # ours
    location: ../templates

  # the shared one
  - type: git
    location: git@example.com:org/t.git
    ref: main
  - default
  templates: [web]
)");
}

TEST(ProjectEdit, FollowsTheItemsOwnIndentation) {
  const std::string text = "sindri_templates:\n  version: 2\n  template_sources:\n      -   type: filesystem\n"
                           "          location: a\n  templates: []\n";
  EXPECT_EQ(added(text, source("filesystem", {"location=b"})),
            "sindri_templates:\n  version: 2\n  template_sources:\n      -   type: filesystem\n"
            "          location: a\n      -   type: filesystem\n          location: b\n  templates: []\n");
}

TEST(ProjectEdit, AppendsToAListThatEndsTheFileWithoutANewline) {
  EXPECT_EQ(added("sindri_templates:\n  version: 2\n  template_sources:\n    - default", source("git", {"location=u"})),
            "sindri_templates:\n  version: 2\n  template_sources:\n    - default\n    - type: git\n      location: u\n");
}

TEST(ProjectEdit, RewritesOnlyTheFlowSequence) {
  const std::string text = "sindri_templates:\n  version: 2\n  template_sources: [ default ]  # one\nx: {a: 1}\n";
  EXPECT_EQ(added(text, source("git", {"location=https://e.com/t.git", "ref=v2"})),
            "sindri_templates:\n  version: 2\n  template_sources: [ default, {type: git, location: https://e.com/t.git, "
            "ref: v2} ]  # one\nx: {a: 1}\n");
  EXPECT_EQ(added(text, source("filesystem", {"location=../t"}), true),
            "sindri_templates:\n  version: 2\n  template_sources: [ {type: filesystem, location: ../t}, default ]  # one\n"
            "x: {a: 1}\n");
}

// A file listing no source means `default`, which stays beside the new one
// (as the seed's `pdk add template_source` says: "sources are now:
// filesystem, default").
TEST(ProjectEdit, WritesTheKeyAfterVersionWhenThereIsNone) {
  EXPECT_EQ(added("# c\nsindri_templates:\n   version: 2  # v\n\n   templates: [web]\nweb: {}\n",
                  source("filesystem", {"location=../t"})),
            "# c\nsindri_templates:\n   version: 2  # v\n   template_sources:\n     - default\n     - type: filesystem\n"
            "       location: ../t\n\n   templates: [web]\nweb: {}\n");
  EXPECT_EQ(added("sindri_templates:\n  version: 2\n", source("filesystem", {"location=../t"}), true),
            "sindri_templates:\n  version: 2\n  template_sources:\n    - type: filesystem\n      location: ../t\n"
            "    - default\n");
  EXPECT_EQ(added("sindri_templates:\n  version: 2", source("default")),
            "sindri_templates:\n  version: 2\n  template_sources:\n    - default\n");
}

TEST(ProjectEdit, FillsAnEmptyList) {
  EXPECT_EQ(added("sindri_templates:\n  version: 2\n  template_sources:\n  templates: [web]\n", source("default")),
            "sindri_templates:\n  version: 2\n  template_sources:\n    - default\n  templates: [web]\n");
  EXPECT_EQ(added("sindri_templates:\n  version: 2\n  template_sources: ~   # none yet\n", source("default")),
            "sindri_templates:\n  version: 2\n  template_sources:   # none yet\n    - default\n");
  EXPECT_EQ(added("sindri_templates:\n  version: 2\n  template_sources: []\n", source("git", {"location=u"})),
            "sindri_templates:\n  version: 2\n  template_sources: [default, {type: git, location: u}]\n");
  EXPECT_EQ(added("sindri_templates:\n  version: 2\n  template_sources:\n", source("git", {"location=u"}), true),
            "sindri_templates:\n  version: 2\n  template_sources:\n    - type: git\n      location: u\n    - default\n");
}

TEST(ProjectEdit, EditsASyncFileUnderItsRootKey) {
  const std::string text = "---\n# PDK\npdk_template:\n  version: 2\n  template_sources:\n    - default\n"
                           "Gemfile:\n  optional: []\n";
  EXPECT_EQ(added(text, source("git", {"location=https://e.com/t.git"}), false, "pdk_template"),
            "---\n# PDK\npdk_template:\n  version: 2\n  template_sources:\n    - default\n    - type: git\n"
            "      location: https://e.com/t.git\nGemfile:\n  optional: []\n");
}

TEST(ProjectEdit, QuotesWhatAPlainScalarWouldMisread) {
  const std::string text = "sindri_templates:\n  version: 2\n  template_sources:\n    - default\n";
  const std::string head = text + "    - type: ";
  EXPECT_EQ(added(text, source("git", {"location=https://e.com/t.git#frag", "ref=true"})),
            head + "git\n      location: \"https://e.com/t.git#frag\"\n      ref: \"true\"\n");
  EXPECT_EQ(added(text, source("filesystem", {"location=my dir: x"})),
            head + "filesystem\n      location: \"my dir: x\"\n");
  EXPECT_EQ(added(text, source("filesystem", {"location=*star"})), head + "filesystem\n      location: \"*star\"\n");
  EXPECT_EQ(added(text, source("filesystem", {"location=a\"b\\c\td"})),
            head + "filesystem\n      location: \"a\\\"b\\\\c\\td\"\n");
  EXPECT_EQ(added(text, source("git", {"location=u", "ref=1.10"})), head + "git\n      location: u\n      ref: \"1.10\"\n");
  // Line breaks YAML knows beyond \n: NEL, LS, PS.
  EXPECT_EQ(added(text, source("filesystem", {"location=a\xC2\x85" "b\xE2\x80\xA8" "c\xE2\x80\xA9" "d"})),
            head + "filesystem\n      location: \"a\\Nb\\Lc\\Pd\"\n");
  EXPECT_EQ(added(text, source("filesystem", {"location=a\xC2\x80" "b\xEF\xBB\xBF" "c"})),
            head + "filesystem\n      location: \"a\\x80b\\uFEFFc\"\n");
  EXPECT_EQ(added("sindri_templates:\n  version: 2\n  template_sources: [default]\n",
                  source("filesystem", {"location=a,b]"})),
            "sindri_templates:\n  version: 2\n  template_sources: [default, {type: filesystem, location: \"a,b]\"}]\n");
}

TEST(ProjectEdit, KeepsCarriageReturnLineEndings) {
  EXPECT_EQ(added("sindri_templates:\r\n  version: 2\r\n  template_sources:\r\n    - default\r\n", source("git", {"location=u"})),
            "sindri_templates:\r\n  version: 2\r\n  template_sources:\r\n    - default\r\n    - type: git\r\n"
            "      location: u\r\n");
}

TEST(ProjectEdit, RemovesExactlyTheItemsLines) {
  EXPECT_EQ(removed(kMappings, "../templates"), R"(sindri_templates:
  version: 2
  template_sources:

  # the shared one
  - type: git
    location: git@example.com:org/t.git
    ref: main
  templates: [web]
)");
  EXPECT_EQ(removed(kMappings, "2"), R"(sindri_templates:
  version: 2
  template_sources:
  - type: filesystem   # ours
    location: ../templates

  # the shared one
  templates: [web]
)");
  EXPECT_EQ(removed(kScalars, "default"), R"(# The project.
sindri_templates:
  version: 2   # pinned
  template_sources:
    # spare sources go here

  templates:
    - web
web:
  title: Shop   # kept
)");
}

TEST(ProjectEdit, AddThenRemoveGivesBackTheSameBytes) {
  for (const std::string& text : {kScalars, kMappings}) {
    const std::string grown = added(text, source("git", {"location=https://e.com/x.git", "ref=v1"}));
    EXPECT_EQ(removed(grown, "https://e.com/x.git"), text);
    const std::string first = added(text, source("filesystem", {"location=../other"}), true);
    EXPECT_EQ(removed(first, "1"), text);
  }
}

TEST(ProjectEdit, RemovesAnElementOfAFlowSequence) {
  const std::string text = "sindri_templates:\n  version: 2\n  template_sources: [default, {type: filesystem, "
                           "location: '../t,1'}, {type: git, location: u}]  # three\n";
  const std::string head = "sindri_templates:\n  version: 2\n  template_sources: ";
  EXPECT_EQ(removed(text, "../t,1"), head + "[default, {type: git, location: u}]  # three\n");
  EXPECT_EQ(removed(text, "u"), head + "[default, {type: filesystem, location: '../t,1'}]  # three\n");
  EXPECT_EQ(removed(text, "default"), head + "[{type: filesystem, location: '../t,1'}, {type: git, location: u}]  # three\n");
  EXPECT_EQ(removed(head + "[default]\n", "1"), head + "[]\n");
}

TEST(ProjectEdit, FindsASourceByPositionLocationOrResolvedPath) {
  const std::string text = "sindri_templates:\n  version: 2\n  template_sources:\n    - type: filesystem\n"
                           "      location: ../templates\n    - type: git\n      location: u\n      ref: a\n"
                           "    - type: git\n      location: u\n      ref: b\n";
  const Project project = parsed(text);
  EXPECT_EQ(*find_listed_source(project, "1"), 0u);
  EXPECT_EQ(*find_listed_source(project, "./../templates"), 0u);
  EXPECT_EQ(*find_listed_source(project, "/work/templates"), 0u);
  EXPECT_EQ(*find_listed_source(project, "u@b"), 2u);
  EXPECT_EQ(find_error(text, "u"),
            "`u` names several template sources in sindri-templates.yaml (positions 2, 3): give the position of the one "
            "to remove");
  EXPECT_EQ(find_error(text, "4"), "no template source at position 4 in sindri-templates.yaml; the sources are: "
                                   "1: filesystem ../templates, 2: git u@a, 3: git u@b");
  EXPECT_EQ(find_error(text, "0"), "no template source at position 0 in sindri-templates.yaml; the sources are: "
                                   "1: filesystem ../templates, 2: git u@a, 3: git u@b");
  EXPECT_EQ(find_error(text, "default"), "no template source `default` in sindri-templates.yaml; the sources are: "
                                         "1: filesystem ../templates, 2: git u@a, 3: git u@b");
  EXPECT_EQ(find_error("sindri_templates:\n  version: 2\n", "default"),
            "sindri-templates.yaml lists no template sources (the project uses `default` implicitly): `default` "
            "cannot be removed");
}

TEST(ProjectEdit, ListsTheSourcesAsWritten) {
  const auto listed = listed_sources(parsed(kMappings));
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].location, "../templates");
  EXPECT_EQ(listed[0].spec.location, "/work/templates");
  EXPECT_EQ(listed[1].describe(), "git git@example.com:org/t.git@main");
  EXPECT_TRUE(listed_sources(parsed("sindri_templates:\n  version: 2\n  template_sources: []\n")).empty());
}

TEST(ProjectEdit, RefusesASourceAlreadyListed) {
  EXPECT_EQ(add_error(kScalars, source("default")),
            "`default` is already listed in sindri-templates.yaml at position 1 (sindri-templates.yaml:5:7)");
  EXPECT_EQ(add_error(kMappings, source("filesystem", {"location=./../templates"})),
            "`filesystem ./../templates` is already listed in sindri-templates.yaml at position 1 "
            "(sindri-templates.yaml:4:5)");
  EXPECT_EQ(add_error(kMappings, source("git", {"location=git@example.com:org/t.git", "ref=main", "trusted=true"})),
            "`git git@example.com:org/t.git@main` is already listed in sindri-templates.yaml at position 2 "
            "(sindri-templates.yaml:8:5)");
  // Another ref of the same remote is another source.
  EXPECT_NE(added(kMappings, source("git", {"location=git@example.com:org/t.git", "ref=v2"})), "");
}

TEST(ProjectEdit, NamesTheBadArgument) {
  EXPECT_EQ(argument_error("git", {"location=u", "branch=main"}),
            "`branch=main`: unknown key `branch` for a git source (known: location, ref, trusted)");
  EXPECT_EQ(argument_error("git", {"ref=main"}), "a git source needs `location=URL`");
  EXPECT_EQ(argument_error("filesystem", {}), "a filesystem source needs `location=DIR`");
  EXPECT_EQ(argument_error("filesystem", {"location=a", "ref=main"}),
            "`ref=main`: a filesystem source takes only `location` (`ref` is for git sources)");
  EXPECT_EQ(argument_error("filesystem", {"trusted=true", "location=a"}),
            "`trusted=true`: a filesystem source takes only `location` (`trusted` is for git sources)");
  EXPECT_EQ(argument_error("git", {"location=--upload-pack=x"}),
            "`location=--upload-pack=x`: a git location cannot start with `-`");
  EXPECT_EQ(argument_error("git", {"location=u", "ref=-x"}), "`ref=-x`: a ref cannot start with `-`");
  EXPECT_EQ(argument_error("git", {"location=u", "trusted=yes"}), "`trusted=yes`: `trusted` must be true or false");
  EXPECT_EQ(argument_error("git", {"location=u", "location=v"}), "`location=v`: `location` is given twice");
  EXPECT_EQ(argument_error("git", {"u"}), "`u`: expected KEY=VALUE");
  EXPECT_EQ(argument_error("git", {"location="}), "`location=`: the location is empty");
  EXPECT_EQ(argument_error("default", {"location=x"}), "`location=x`: a default source takes no KEY=VALUE arguments");
  EXPECT_EQ(argument_error("svn", {}), "unknown template source type `svn` (known: filesystem, git, default)");
}

TEST(ProjectEdit, RefusesLayoutsItCannotEditSafely) {
  EXPECT_EQ(add_error("sindri_templates: {version: 2}\n", source("default")),
            "sindri-templates.yaml:1:19: cannot edit `template_sources` here: `sindri_templates` is not a block "
            "mapping; edit the file by hand");
  EXPECT_EQ(add_error("sindri_templates:\n  version: 2\n  \"template_sources\":\n", source("default")),
            "sindri-templates.yaml:2:3: cannot edit `template_sources` here: its key is not written plainly as "
            "`template_sources:`; edit the file by hand");
  EXPECT_EQ(add_error("x: {list: &s [default]}\nsindri_templates:\n  version: 2\n  template_sources: *s\n",
                      source("git", {"location=u"})),
            "sindri-templates.yaml:4:21: cannot edit `template_sources` here: it is not a plain block or flow "
            "sequence; edit the file by hand");
}

class ProjectEditFiles : public RepoTest {};

TEST_F(ProjectEditFiles, WritesThroughATemporaryFileKeepingTheMode) {
  const fs::path path = write("project/sindri-templates.yaml", kScalars);
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);
  ASSERT_TRUE(write_project_file(path, "new\n").ok());
  EXPECT_EQ(read_text(path), "new\n");
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_FALSE(fs::exists(path.string() + ".sindri-incoming"));

  const fs::path link = root_ / "link.yaml";
  fs::create_symlink(path, link);
  ASSERT_TRUE(write_project_file(link, "again\n").ok());
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_text(path), "again\n");

  const auto missing = write_project_file(root_ / "nowhere/x.yaml", "x");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("cannot read the mode of " + (root_ / "nowhere/x.yaml").string()),
            std::string::npos)
      << missing.error().message;
}

TEST_F(ProjectEditFiles, ReadsTheFileLoadProjectPicks) {
  write("project/.sync.yml", "pdk_template:\n  version: 2\n");
  auto file = read_project_file(root_ / "project");
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ(file->path, root_ / "project/.sync.yml");
  EXPECT_EQ(file->text, "pdk_template:\n  version: 2\n");
  EXPECT_EQ(file->project.root_key, "pdk_template");
  const auto none = read_project_file(root_ / "nowhere");
  EXPECT_FALSE(none.ok());
}

}  // namespace
}  // namespace sindri::repo
