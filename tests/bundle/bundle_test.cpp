#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "bundle/bundle.hpp"
#include "bundle/convert.hpp"
#include "bundle/helm.hpp"
#include "bundle/stdlib.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::bundle {
namespace {

namespace fs = std::filesystem;

// The working example of Slapper ADR 0004.
const char* const kSeedBundle = R"(meta:
  name: postgresql
renderer:
  type: helm
  repository: https://charts.cnpg.io/
  chart: cluster
  version: 0.4.0
  values:
    fullnameOverride: pg
    cluster:
      instances: 1
      storage:
        size: 1Gi
  valueMapping:
    - claimPath: .spec.parameters.size.replicas
      target: cluster.instances
    - claimPath: .spec.parameters.size.disk
      target: cluster.storage.size
pipeline:
  - kind: provisioning
)";

const char* const kSeedTemplate = R"(apiVersion: krm.kcl.dev/v1alpha1
kind: KCLInput
spec:
  source: |
    release.spec.forProvider.chart = {
        repository = {$slapperRef: renderer.spec.repository.kcl}
        name = {$slapperRef: renderer.spec.chart.kcl}
        version = {$slapperRef: renderer.spec.version.kcl}
    }
    release.spec.forProvider.values = {$slapperRef: renderer.values.kcl}
)";

const char* const kSeedRenderedSource = R"(release.spec.forProvider.chart = {
    repository = "https://charts.cnpg.io/"
    name = "cluster"
    version = "0.4.0"
}
release.spec.forProvider.values = {
    cluster = {
        instances = oxr.spec.parameters.size.replicas
        storage = {size = oxr.spec.parameters.size.disk}
    }
    fullnameOverride = "pg"
}
)";

const char* const kStdlibIndex = R"(kind: Stdlib
steps:
  - kind: provisioning
    functionRef: {name: function-kcl}
    inputTemplates:
      helm: templates/provisioning-helm.yaml
  - kind: auto-ready
    functionRef: {name: function-auto-ready}
    inputFile: inputs/auto-ready.yaml
)";

class Bundle : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "sindri-bundle-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    write("stdlib.yaml", kStdlibIndex);
    write("templates/provisioning-helm.yaml", kSeedTemplate);
    write("inputs/auto-ready.yaml", "kind: AutoReady\n");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  void write(const std::string& name, const std::string& text) {
    fs::create_directories((dir_ / name).parent_path());
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }

  Result<ServiceBundle> parse(const std::string& text) {
    YamlOptions options;
    options.record_positions = true;
    auto docs = parse_yaml_stream(text, "b.yaml", options);
    EXPECT_TRUE(docs.ok());
    return parse_bundle(docs->front(), "b.yaml");
  }
  std::string parse_error(const std::string& text) {
    auto parsed = parse(text);
    EXPECT_FALSE(parsed.ok());
    return parsed.ok() ? "" : parsed.error().message;
  }
  Result<Conversion> run(const std::string& text) {
    auto parsed = parse(text);
    EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.error().message);
    if (!parsed) return std::move(parsed).error();
    auto stdlib = load_stdlib(dir_);
    EXPECT_TRUE(stdlib.ok()) << (stdlib.ok() ? "" : stdlib.error().message);
    if (!stdlib) return std::move(stdlib).error();
    return convert(*parsed, &*stdlib);
  }
  std::string convert_error(const std::string& text) {
    auto out = run(text);
    EXPECT_FALSE(out.ok());
    return out.ok() ? "" : out.error().message;
  }

  fs::path dir_;
};

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

TEST_F(Bundle, SeedWorkingExampleRendersTheSeedStep) {
  auto out = run(kSeedBundle);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_TRUE(out->warnings.empty());
  const Value& step = *out->composition.find("spec")->find("pipeline")->at(0);
  EXPECT_EQ(step.find("step")->get_string(), "provisioning");
  EXPECT_EQ(step.find("functionRef")->find("name")->get_string(), "function-kcl");
  const Value& input = *step.find("input");
  EXPECT_EQ(input.find("kind")->get_string(), "KCLInput");
  EXPECT_EQ(input.find("spec")->find("source")->get_string(), kSeedRenderedSource);
  EXPECT_EQ(out->composition.find("kind")->get_string(), "Composition");
  EXPECT_EQ(out->composition.find("spec")->find("mode")->get_string(), "Pipeline");
}

TEST_F(Bundle, ValuesMergeDeepClonesAndAcceptsTargetsWithALeadingDot) {
  auto parsed = parse(replaced(kSeedBundle, "target: cluster.instances", "target: .cluster.instances"));
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  auto merged = merge_helm_values(parsed->renderer->helm);
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_EQ(parsed->renderer->helm.values.find("cluster")->find("instances")->get_int(), 1);
  EXPECT_EQ(to_yaml(*merged),
            "cluster:\n  instances:\n    $kclExpression: oxr.spec.parameters.size.replicas\n  storage:\n"
            "    size:\n      $kclExpression: oxr.spec.parameters.size.disk\nfullnameOverride: pg\n");
}

TEST_F(Bundle, ClaimReferencesSubscriptSegmentsThatAreNotIdentifiers) {
  EXPECT_EQ(claim_reference({"metadata", "labels", "app.kubernetes.io/name"}),
            R"(oxr.metadata.labels["app.kubernetes.io/name"])");
  EXPECT_EQ(claim_reference({"spec", "if"}), R"(oxr.spec["if"])");
}

TEST_F(Bundle, MissingRendererIsAnError) {
  const std::string e = convert_error("meta: {name: x}\npipeline:\n- kind: provisioning\n");
  EXPECT_NE(e.find("no renderer stanza"), std::string::npos) << e;
}

TEST_F(Bundle, UnknownRendererTypeIsAnError) {
  const std::string e = parse_error(replaced(kSeedBundle, "type: helm", "type: kustomize"));
  EXPECT_NE(e.find("b.yaml:4:9: unknown renderer type \"kustomize\""), std::string::npos) << e;
}

TEST_F(Bundle, PlainManifestsIsReservedNotImplemented) {
  const std::string e = parse_error(replaced(kSeedBundle, "type: helm", "type: plain_manifests"));
  EXPECT_NE(e.find("not implemented yet"), std::string::npos) << e;
}

TEST_F(Bundle, EachChartFieldIsRequired) {
  for (const char* field : {"repository: https://charts.cnpg.io/", "chart: cluster", "version: 0.4.0"}) {
    const std::string e = parse_error(replaced(kSeedBundle, std::string("  ") + field + "\n", ""));
    const std::string name = std::string(field).substr(0, std::string(field).find(':'));
    EXPECT_NE(e.find("renderer." + name + " (type helm) is required"), std::string::npos) << e;
  }
}

// A misspelt key would drop what it holds without a word: valueMappings
// would convert with the chart's defaults in place of the claim's fields.
// The position is that of the key's value.
TEST_F(Bundle, KeysTheFormatDoesNotHaveAreErrorsNamingWhere) {
  std::string e = parse_error(replaced(kSeedBundle, "  valueMapping:", "  valueMappings:"));
  EXPECT_NE(e.find("b.yaml:15:5: renderer has no key `valueMappings` (its keys: type, repository, chart, version, "
                   "values, valueMapping)"),
            std::string::npos)
      << e;
  e = parse_error(replaced(kSeedBundle, "      target: cluster.instances", "      taget: cluster.instances"));
  EXPECT_NE(e.find("b.yaml:16:14: renderer.valueMapping[0] has no key `taget` (its keys: claimPath, target)"),
            std::string::npos)
      << e;
  e = parse_error(replaced(kSeedBundle, "  name: postgresql", "  name: postgresql\n  nmae: x"));
  EXPECT_NE(e.find("b.yaml:3:9: meta has no key `nmae`"), std::string::npos) << e;
  e = parse_error(std::string(kSeedBundle) + "extra: 1\n");
  EXPECT_NE(e.find("b.yaml:21:8: a ServiceBundle has no key `extra` (its keys: meta, renderer, pipeline)"),
            std::string::npos)
      << e;
}

TEST_F(Bundle, AVersionThatIsNotAStringMustBeQuoted) {
  const std::string e = parse_error(replaced(kSeedBundle, "version: 0.4.0", "version: 1.10"));
  EXPECT_NE(e.find("must be a string, not a float (quote it)"), std::string::npos) << e;
}

TEST_F(Bundle, ZeroProvisioningStepsIsAnError) {
  const std::string e = parse_error(replaced(kSeedBundle, "- kind: provisioning", "- kind: auto-ready"));
  EXPECT_NE(e.find("exactly one provisioning step, it has 0"), std::string::npos) << e;
}

TEST_F(Bundle, TwoProvisioningStepsIsAnError) {
  const std::string e = parse_error(std::string(kSeedBundle) + "  - kind: provisioning\n");
  EXPECT_NE(e.find("exactly one provisioning step, it has 2 (entries 0 1)"), std::string::npos) << e;
}

TEST_F(Bundle, MissingStdlibTemplateForTheRendererTypeIsAnError) {
  write("stdlib.yaml", replaced(kStdlibIndex, "helm: templates", "kustomize: templates"));
  const std::string e = convert_error(kSeedBundle);
  EXPECT_NE(e.find("no provisioning template for renderer type \"helm\""), std::string::npos) << e;
}

TEST_F(Bundle, StdlibWithoutTheStepKindIsAnError) {
  const std::string e = convert_error(std::string(kSeedBundle) + "  - kind: backup\n");
  EXPECT_NE(e.find("has no step of kind \"backup\""), std::string::npos) << e;
}

TEST_F(Bundle, ProvisioningEntryMustUseInputTemplates) {
  write("stdlib.yaml", "kind: Stdlib\nsteps:\n- kind: provisioning\n  functionRef: {name: f}\n  inputFile: x.yaml\n");
  auto stdlib = load_stdlib(dir_);
  ASSERT_FALSE(stdlib.ok());
  EXPECT_NE(stdlib.error().message.find("uses inputTemplates, not inputFile"), std::string::npos);
}

TEST_F(Bundle, ClaimPathWithoutALeadingDotIsAnError) {
  const std::string e = parse_error(replaced(kSeedBundle, "claimPath: .spec.parameters.size.disk", "claimPath: spec.parameters.size.disk"));
  EXPECT_NE(e.find("b.yaml:17:18: renderer.valueMapping[1].claimPath \"spec.parameters.size.disk\" must start with a dot"),
            std::string::npos)
      << e;
}

TEST_F(Bundle, ClaimPathWithAnEmptySegmentIsAnError) {
  const std::string e = parse_error(replaced(kSeedBundle, ".spec.parameters.size.disk", ".spec..disk"));
  EXPECT_NE(e.find("has an empty segment"), std::string::npos) << e;
}

TEST_F(Bundle, TargetThroughAScalarIsAnError) {
  const std::string e = convert_error(replaced(kSeedBundle, "target: cluster.storage.size", "target: fullnameOverride.x"));
  EXPECT_NE(e.find("values.fullnameOverride is string, not a map"), std::string::npos) << e;
}

TEST_F(Bundle, UnknownRootInTheStdlibTemplateIsAnError) {
  write("templates/provisioning-helm.yaml", "spec:\n  source: {$slapperRef: chart.name}\n");
  const std::string e = convert_error(kSeedBundle);
  EXPECT_NE(e.find("provisioning-helm.yaml:2:11: placeholder chart.name at /spec/source: unknown root \"chart\""),
            std::string::npos)
      << e;
}

TEST_F(Bundle, UnknownHelmFieldIsAnError) {
  write("templates/provisioning-helm.yaml", "spec:\n  source: {$slapperRef: renderer.spec.release}\n");
  const std::string e = convert_error(kSeedBundle);
  EXPECT_NE(e.find("unknown field \"spec.release\""), std::string::npos) << e;
}

TEST_F(Bundle, MissingRequiredHelmFieldIsAnError) {
  Renderer renderer;
  renderer.type = "helm";
  renderer.helm.repository = "https://charts.cnpg.io/";
  renderer.helm.version = "0.4.0";
  renderer.helm.values = Value(Object{});
  auto root = helm_root(renderer);
  ASSERT_TRUE(root.ok());
  auto chart = (*root)("spec.chart.kcl");
  ASSERT_FALSE(chart.ok());
  EXPECT_NE(chart.error().message.find("required field \"spec.chart\" is missing"), std::string::npos);
}

TEST_F(Bundle, MissingOptionalValuesGiveAnEmptyMap) {
  auto out = run(replaced(replaced(kSeedBundle, "  values:\n    fullnameOverride: pg\n    cluster:\n      instances: 1\n"
                                                "      storage:\n        size: 1Gi\n", ""),
                          "  valueMapping:\n    - claimPath: .spec.parameters.size.replicas\n      target: cluster.instances\n"
                          "    - claimPath: .spec.parameters.size.disk\n      target: cluster.storage.size\n",
                          ""));
  ASSERT_TRUE(out.ok()) << out.error().message;
  const std::string source(
      out->composition.find("spec")->find("pipeline")->at(0)->find("input")->find("spec")->find("source")->get_string());
  EXPECT_NE(source.find("release.spec.forProvider.values = {}\n"), std::string::npos) << source;
}

TEST_F(Bundle, PlaceholderLookingTextInASubstitutedValueIsLeftAlone) {
  auto out = run(replaced(kSeedBundle, "fullnameOverride: pg", "fullnameOverride: '{$slapperRef: renderer.spec.chart}'"));
  ASSERT_TRUE(out.ok()) << out.error().message;
  const std::string source(
      out->composition.find("spec")->find("pipeline")->at(0)->find("input")->find("spec")->find("source")->get_string());
  EXPECT_NE(source.find(R"(fullnameOverride = "{$slapperRef: renderer.spec.chart}")"), std::string::npos) << source;
}

TEST_F(Bundle, ReservedExpressionMarkersInValuesAreRejected) {
  const std::string e = convert_error(replaced(kSeedBundle, "fullnameOverride: pg", "fullnameOverride: {$kclExpression: evil()}"));
  EXPECT_NE(e.find("reserved $kclExpression"), std::string::npos) << e;
}

TEST_F(Bundle, NoStdlibUsesDummyInputsAndWarnsAboutTheRenderer) {
  auto parsed = parse(kSeedBundle);
  ASSERT_TRUE(parsed.ok());
  auto out = convert(*parsed, nullptr);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->warnings.size(), 1u);
  EXPECT_NE(out->warnings[0].find("renderer stanza (type helm) is skipped"), std::string::npos);
  const std::string source(
      out->composition.find("spec")->find("pipeline")->at(0)->find("input")->find("spec")->find("source")->get_string());
  EXPECT_NE(source.find("dummy input"), std::string::npos);
}

TEST(ShippedExample, ConvertsToTheSeedStep) {
  const fs::path root = fs::path(SINDRI_TESTS_DIR).parent_path() / "examples" / "bundle";
  std::ifstream in(root / "servicebundle.yaml", std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  YamlOptions options;
  options.record_positions = true;
  auto docs = parse_yaml_stream(text, "servicebundle.yaml", options);
  ASSERT_TRUE(docs.ok());
  auto parsed = parse_bundle(docs->front(), "servicebundle.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  auto stdlib = load_stdlib(root / "stdlib");
  ASSERT_TRUE(stdlib.ok()) << stdlib.error().message;
  auto out = convert(*parsed, &*stdlib);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out->composition.find("spec")->find("pipeline")->at(0)->find("input")->find("spec")->find("source")->get_string(),
            kSeedRenderedSource);
}

}  // namespace
}  // namespace sindri::bundle
