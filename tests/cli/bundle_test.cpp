// `sindri bundle convert`: the shipped example, --no-stdlib, -o, errors.

#include "sindri_process.hpp"

namespace sindri_test {
namespace {

class BundleConvert : public SindriTest {
 protected:
  const fs::path example = fs::path(SINDRI_SOURCE_DIR) / "examples" / "bundle";
  std::string bundle_path() { return (example / "servicebundle.yaml").string(); }
  std::string stdlib_path() { return (example / "stdlib").string(); }
};

TEST_F(BundleConvert, PrintsTheCompositionWithResolvedInputs) {
  Outcome r = sindri({"bundle", "convert", bundle_path(), "--stdlib", stdlib_path()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("kind: Composition\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("          release.spec.forProvider.chart = {\n"
                       "              repository = \"https://charts.cnpg.io/\"\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("                  storage = {size = oxr.spec.parameters.size.disk}\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    step: auto-ready\n"), std::string::npos) << r.out;
}

TEST_F(BundleConvert, OutputDirGetsCompositionYaml) {
  const fs::path out_dir = dir_ / "out";
  Outcome r = sindri({"bundle", "convert", bundle_path(), "--stdlib", stdlib_path(), "-o", out_dir.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, (out_dir / "composition.yaml").string() + "\n");
  Outcome printed = sindri({"bundle", "convert", bundle_path(), "--stdlib", stdlib_path()});
  EXPECT_EQ(read_all(out_dir / "composition.yaml"), printed.out);
}

TEST_F(BundleConvert, NoStdlibWarnsThatTheRendererIsSkipped) {
  Outcome r = sindri({"bundle", "convert", bundle_path(), "--no-stdlib"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: --no-stdlib: the bundle's renderer stanza (type helm) is skipped"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("dummy input (--no-stdlib)"), std::string::npos) << r.out;
}

TEST_F(BundleConvert, NoStdlibWithoutARendererDoesNotWarn) {
  auto b = file("b.yaml", "meta: {name: x}\npipeline:\n- kind: provisioning\n");
  Outcome r = sindri({"bundle", "convert", b.string(), "--no-stdlib"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST_F(BundleConvert, AnInvalidBundleFailsBeforeAnythingIsWritten) {
  auto b = file("b.yaml", "meta: {name: x}\nrenderer: {type: plain_manifests}\npipeline:\n- kind: provisioning\n");
  const fs::path out_dir = dir_ / "out";
  Outcome r = sindri({"bundle", "convert", b.string(), "--stdlib", stdlib_path(), "-o", out_dir.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("b.yaml:2:18: renderer type \"plain_manifests\" is not implemented yet"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(out_dir));
}

TEST_F(BundleConvert, AMissingStdlibTemplateFailsBeforeAnythingIsWritten) {
  file("lib/stdlib.yaml",
       "kind: Stdlib\nsteps:\n- kind: provisioning\n  functionRef: {name: f}\n  inputTemplates: {helm: missing.yaml}\n"
       "- kind: auto-ready\n  functionRef: {name: g}\n  inputFile: ready.yaml\n");
  file("lib/ready.yaml", "kind: Ready\n");
  const fs::path out_dir = dir_ / "out";
  Outcome r = sindri({"bundle", "convert", bundle_path(), "--stdlib", (dir_ / "lib").string(), "-o", out_dir.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot read stdlib input"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out_dir));
}

TEST_F(BundleConvert, StdlibOrNoStdlibIsRequiredAndExclusive) {
  EXPECT_EQ(sindri({"bundle", "convert", bundle_path()}).exit_code, 2);
  EXPECT_EQ(sindri({"bundle", "convert", bundle_path(), "--stdlib", stdlib_path(), "--no-stdlib"}).exit_code, 2);
}

TEST_F(BundleConvert, AMissingBundleFileIsAnError) {
  Outcome r = sindri({"bundle", "convert", (dir_ / "nope.yaml").string(), "--no-stdlib"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot read bundle file"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace sindri_test
