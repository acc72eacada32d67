// Runs the built `sindri` binary and checks its stdout, stderr and exit code.

#include <string>

#include "sindri_process.hpp"

namespace {

namespace fs = std::filesystem;
using sindri_test::Outcome;
using sindri_test::read_all;
using Cli = sindri_test::SindriTest;

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// True when `text` holds `prefix` directly followed by a number and then `suffix`
// (e.g. "t.tera:2:" + "17" + ":").
bool has_number_after(const std::string& text, const std::string& prefix, const std::string& suffix) {
  for (size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at + 1)) {
    size_t i = at + prefix.size();
    const size_t digits = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    if (i > digits && text.compare(i, suffix.size(), suffix) == 0) return true;
  }
  return false;
}

// --- render -----------------------------------------------------------------

TEST_F(Cli, RenderPrintsExactBytesWithoutAddingANewline) {
  auto tpl = file("t.tera", "a{{ x }}b");
  auto ctx = file("c.json", R"({"x": 1})");
  Outcome r = sindri({"render", tpl.string(), "--context", ctx.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "a1b");
  EXPECT_EQ(r.err, "");
}

TEST_F(Cli, RenderKeepsTrailingWhitespaceAndUtf8) {
  auto tpl = file("t.tera", "h\xC3\xA9llo {{ name }}\n\n  \n");
  auto ctx = file("c.json", R"({"name": "w\u00f6rld"})");
  Outcome r = sindri({"render", tpl.string(), "-c", ctx.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "h\xC3\xA9llo w\xC3\xB6rld\n\n  \n");
}

TEST_F(Cli, RenderWithoutContextUsesAnEmptyObject) {
  auto tpl = file("t.tera", "{{ 1 + 2 }}{% if x is defined %}x{% else %}-{% endif %}");
  Outcome r = sindri({"render", tpl.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "3-");
}

TEST_F(Cli, RenderShippedExampleMatchesTera) {
  const fs::path root = SINDRI_SOURCE_DIR;
  Outcome r = sindri({"render", (root / "examples/hello/deployment.yaml.tera").string(), "--context",
                  (root / "examples/hello/values.json").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // expected.yaml is Tera 1.17's output (shared/tools/tera-ref).
  EXPECT_EQ(r.out, read_all(root / "examples/hello/expected.yaml"));
}

// The shared corpus' tera-dir/inheritance case: extends, super(), import, include.
void write_inheritance(const fs::path& root) {
  write_file(root / "macros/k8s.tera",
             "{% macro label(k, v) %}{{ k }}: {{ v | json_encode() }}{% endmacro label %}\n");
  write_file(root / "part.tera", "included for {{ name | lower }}\n");
  write_file(root / "child.tera",
             "{% extends \"base.tera\" %}\n"
             "{% import \"macros/k8s.tera\" as k8s %}\n"
             "{% block title %}{{ name }} - {{ super() }}{% endblock title %}\n"
             "{% block body %}{{ k8s::label(k=\"app\", v=name) }}\n"
             "{% include \"part.tera\" %}{% endblock body %}\n");
  write_file(root / "base.tera",
             "# {% block title %}base title{% endblock title %}\n"
             "{% block body %}base body{% endblock body %}\n"
             "footer\n");
}
constexpr const char* kInheritanceOut = "# Demo - base title\napp: \"Demo\"\nincluded for demo\n\nfooter\n";

TEST_F(Cli, RenderTemplatesDirByPathInsideIt) {
  write_inheritance(dir_ / "tpl");
  auto ctx = file("c.json", R"({"name":"Demo"})");
  Outcome r = sindri({"render", (dir_ / "tpl/child.tera").string(), "--templates", (dir_ / "tpl").string(),
                  "--context", ctx.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, kInheritanceOut);
}

TEST_F(Cli, RenderTemplatesDirByName) {
  write_inheritance(dir_ / "tpl");
  auto ctx = file("c.json", R"({"name":"Demo"})");
  Outcome r = sindri({"render", "child.tera", "--templates", (dir_ / "tpl/").string(), "--context",
                  ctx.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, kInheritanceOut);

  file("tpl/nested/leaf.tera", "leaf {{ name }}");
  Outcome sub = sindri({"render", "nested/leaf.tera", "--templates", (dir_ / "tpl").string(), "--context",
                    ctx.string()});
  EXPECT_EQ(sub.exit_code, 0) << sub.err;
  EXPECT_EQ(sub.out, "leaf Demo");
}

// A templates directory under git, or open in an editor, holds files that
// are no templates (and often not UTF-8): hidden ones are left out.
TEST_F(Cli, HiddenFilesAndDirectoriesOfTheTemplatesDirAreLeftOut) {
  write_inheritance(dir_ / "tpl");
  file("tpl/.git/objects/ab/cdef", std::string("x\x9c\xff\0binary", 10));
  file("tpl/.child.tera.swp", std::string("\xff\xfe", 2));
  file("tpl/macros/.DS_Store", std::string("\0\0\x01Bud1", 7));
  auto ctx = file("c.json", R"({"name":"Demo"})");
  Outcome r = sindri({"render", "child.tera", "--templates", (dir_ / "tpl").string(), "--context", ctx.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, kInheritanceOut);
  Outcome checked = sindri({"check", "child.tera", "--templates", (dir_ / "tpl").string()});
  EXPECT_EQ(checked.exit_code, 0) << checked.err;
}

TEST_F(Cli, RenderTemplateOutsideDirIncludesFromIt) {
  write_inheritance(dir_ / "tpl");
  auto tpl = file("main.yaml.tera",
                  "{% import \"macros/k8s.tera\" as m %}{{ m::label(k=\"x\", v=1) }}|"
                  "{% include \"part.tera\" %}");
  auto ctx = file("c.json", R"({"name":"ABC"})");
  Outcome r = sindri({"render", tpl.string(), "--templates", (dir_ / "tpl").string(), "--context",
                  ctx.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "x: 1|included for abc\n");
}

TEST_F(Cli, RenderMissingParentInTemplatesDirFails) {
  file("tpl/child.tera", "{% extends \"nope.tera\" %}{% block a %}{% endblock a %}");
  Outcome r = sindri({"render", "child.tera", "--templates", (dir_ / "tpl").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("nope.tera"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(Cli, RenderMissingTemplateFileNamesIt) {
  const std::string missing = (dir_ / "no-such.tera").string();
  Outcome r = sindri({"render", missing});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("No such file"), std::string::npos) << r.err;
}

// `-` is standard input, as for kubectl and helm; only one file may be it.
TEST_F(Cli, RenderReadsValuesOrTheTemplateFromStandardInput) {
  const fs::path tpl = file("t.tera", "name: {{ name }}\n");
  const std::string values = "name: web\n";
  Outcome from_stdin = sindri({"render", tpl.string(), "-f", "-"}, &values);
  EXPECT_EQ(from_stdin.exit_code, 0) << from_stdin.err;
  EXPECT_EQ(from_stdin.out, "name: web\n");
  const std::string source = "kind: {{ name }}\n";
  Outcome template_from_stdin = sindri({"render", "-", "-f", file("v.yaml", values).string()}, &source);
  EXPECT_EQ(template_from_stdin.exit_code, 0) << template_from_stdin.err;
  EXPECT_EQ(template_from_stdin.out, "kind: web\n");
  // Refused before anything is read, whichever file would come first.
  for (std::vector<std::string> twice : {std::vector<std::string>{"render", "-", "-f", "-"}, {"render", "-", "-c", "-"}}) {
    Outcome refused = sindri(twice, &values);
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_EQ(refused.err, "error: standard input (-) can stand for one file only\n") << refused.err;
  }
}

TEST_F(Cli, RenderMissingTemplatesDirNamesIt) {
  auto tpl = file("t.tera", "x");
  const std::string missing = (dir_ / "nodir").string();
  Outcome r = sindri({"render", tpl.string(), "--templates", missing});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
}

TEST_F(Cli, RenderMissingContextFileNamesIt) {
  auto tpl = file("t.tera", "x");
  const std::string missing = (dir_ / "nope.json").string();
  Outcome r = sindri({"render", tpl.string(), "--context", missing});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
}

TEST_F(Cli, RenderInvalidContextJsonGivesLineAndColumn) {
  auto tpl = file("t.tera", "x");
  auto ctx = file("bad.json", "{\n  \"a\": 1,\n  \"b\": ]\n}\n");
  Outcome r = sindri({"render", tpl.string(), "--context", ctx.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(ctx.string()), std::string::npos) << r.err;
  EXPECT_TRUE(has_number_after(r.err, "line 3 column ", ":")) << r.err;
}

TEST_F(Cli, RenderContextThatIsNotAnObjectFails) {
  auto tpl = file("t.tera", "x");
  for (const char* text : {"[1, 2]", "42", "\"s\"", "null"}) {
    auto ctx = file("ctx.json", text);
    Outcome r = sindri({"render", tpl.string(), "--context", ctx.string()});
    EXPECT_EQ(r.exit_code, 1) << text;
    EXPECT_EQ(r.out, "") << text;
    EXPECT_NE(r.err.find("object"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(ctx.string()), std::string::npos) << r.err;
  }
}

TEST_F(Cli, RenderParseErrorGivesNameLineAndColumn) {
  auto tpl = file("broken.tera", "line one\nline two {{ x + }}\n");
  Outcome r = sindri({"render", tpl.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(tpl.string() + ":2:"), std::string::npos) << r.err;
  EXPECT_TRUE(has_number_after(r.err, tpl.string() + ":2:", ":")) << r.err;
}

TEST_F(Cli, RenderParseErrorInsideTemplatesDirUsesRelativeName) {
  file("tpl/sub/bad.tera", "ok\n{% if %}\n");
  Outcome r = sindri({"render", "sub/bad.tera", "--templates", (dir_ / "tpl").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(has_number_after(r.err, "sub/bad.tera:2:", ":")) << r.err;
}

TEST_F(Cli, RenderErrorNamesTemplateAndLine) {
  auto tpl = file("undef.tera", "a\nb {{ missing_var }}\n");
  Outcome r = sindri({"render", tpl.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(tpl.string() + ":2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("missing_var"), std::string::npos) << r.err;
}

// --- check --------------------------------------------------------------------

TEST_F(Cli, CheckValidTemplatePrintsNothing) {
  auto tpl = file("ok.tera", "{% for x in xs %}{{ x | upper }}{% endfor %}{{ y }}");
  Outcome r = sindri({"check", tpl.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
}

TEST_F(Cli, CheckSyntaxErrorFails) {
  auto tpl = file("bad.tera", "{% for x in xs %}\n{{ x }}\n");
  Outcome r = sindri({"check", tpl.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(tpl.string() + ":"), std::string::npos) << r.err;
}

TEST_F(Cli, CheckUnknownFilterFails) {
  auto tpl = file("f.tera", "{{ x | no_such_filter }}");
  Outcome r = sindri({"check", tpl.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no_such_filter"), std::string::npos) << r.err;
}

TEST_F(Cli, CheckTemplatesDir) {
  write_inheritance(dir_ / "tpl");
  Outcome ok = sindri({"check", "child.tera", "--templates", (dir_ / "tpl").string()});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.err, "");

  file("tpl/orphan.tera", "{% extends \"missing-parent.tera\" %}");
  Outcome bad = sindri({"check", "child.tera", "--templates", (dir_ / "tpl").string()});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("missing-parent.tera"), std::string::npos) << bad.err;
}

// Every problem at once, each at its tag, so that one run finds them all.
TEST_F(Cli, CheckTemplatesDirListsEveryLinkingProblemWithItsPosition) {
  write_inheritance(dir_ / "tpl");
  file("tpl/orphan.tera", "\n{% extends \"missing-parent.tera\" %}");
  file("tpl/stray.tera", "{% extends \"nowhere.tera\" %}{% import \"no-macros.tera\" as m %}");
  file("tpl/loop/a.tera", "{% extends \"loop/b.tera\" %}");
  file("tpl/loop/b.tera", "{% extends \"loop/a.tera\" %}");
  file("tpl/loop/c.tera", "{% extends \"loop/a.tera\" %}");
  file("tpl/uses.tera", "x\n  {% include \"gone.tera\" %}{% include \"gone.tera\" ignore missing %}"
                        "{% include [\"gone.tera\", \"part.tera\"] %}");
  Outcome r = sindri({"check", "child.tera", "--templates", (dir_ / "tpl").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "loop/a.tera:1:1: parse error: Circular extend detected for template 'loop/a.tera'. Inheritance chain: "
            "`loop/a.tera` > `loop/b.tera` > `loop/a.tera`\n"
            "orphan.tera:2:1: parse error: Template 'orphan.tera' is inheriting from 'missing-parent.tera', which "
            "doesn't exist or isn't loaded.\n"
            "stray.tera:1:1: parse error: Template 'stray.tera' is inheriting from 'nowhere.tera', which doesn't exist "
            "or isn't loaded.\n"
            "stray.tera:1:29: parse error: Template `stray.tera` loads macros from `no-macros.tera` which isn't "
            "present\n"
            "uses.tera:2:3: render error: Template '[gone.tera]' not found\n");
}

// Tera renders a template whose missing include is never reached: only
// `check` and `lint` report it.
TEST_F(Cli, RenderIgnoresAMissingIncludeItDoesNotReach) {
  file("tpl/main.tera", "{% if false %}{% include \"gone.tera\" %}{% endif %}ok");
  Outcome r = sindri({"render", "main.tera", "--templates", (dir_ / "tpl").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "ok");
  Outcome checked = sindri({"check", "main.tera", "--templates", (dir_ / "tpl").string()});
  EXPECT_EQ(checked.exit_code, 1);
  EXPECT_EQ(checked.err, "main.tera:1:15: render error: Template '[gone.tera]' not found\n");
}

TEST_F(Cli, CheckMissingFileFails) {
  const std::string missing = (dir_ / "gone.tera").string();
  Outcome r = sindri({"check", missing});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
}

// --- the command itself ---------------------------------------------------------

TEST_F(Cli, Version) {
  Outcome r = sindri({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find(SINDRI_VERSION), std::string::npos) << r.out;
}

TEST_F(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(sindri({}).exit_code, 2);
  EXPECT_EQ(sindri({"render"}).exit_code, 2);
  EXPECT_EQ(sindri({"render", "a", "--bogus"}).exit_code, 2);
  Outcome unknown = sindri({"rendr", "a.tera"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err.rfind("error: unknown command `rendr` (commands: render, check, ", 0), 0u) << unknown.err;
}

}  // namespace
