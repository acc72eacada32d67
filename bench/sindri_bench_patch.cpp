// sindri-bench-patch ORIGINAL.yaml PATCH.yaml [N]
//
// Strategic merge patch in process: the patch applied N times to the
// document of ORIGINAL.yaml named shop-front-backend (or its only document),
// both parsed once. Prints the patched document as YAML on stdout (for the
// output check) and "ops_per_sec=... per_op_us=..." on stderr.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "patch/patch.hpp"
#include "value/yaml/yaml.hpp"

namespace {

std::string read_text(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

int main(int argc, char** argv) {
  using namespace sindri;
  if (argc < 3) {
    std::fprintf(stderr, "usage: sindri-bench-patch ORIGINAL.yaml PATCH.yaml [N]\n");
    return 2;
  }
  const long n = argc > 3 ? std::atol(argv[3]) : 100000;
  auto originals = parse_yaml_stream(read_text(argv[1]), argv[1]);
  auto patch = parse_yaml(read_text(argv[2]), argv[2]);
  if (!originals || !patch) {
    std::fprintf(stderr, "sindri-bench-patch: cannot parse the input\n");
    return 1;
  }
  Value original;
  for (const YamlDocument& document : *originals) {
    const Value* metadata = document.value.find("metadata");
    const Value* name = metadata ? metadata->find("name") : nullptr;
    if (originals->size() == 1 || (name && name->is_string() && name->get_string() == "shop-front-backend")) {
      original = document.value;
    }
  }

  Value result;
  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) {
    auto patched = patch::patch_object(original, *patch, patch::PatchType::Strategic);
    if (!patched) {
      std::fprintf(stderr, "sindri-bench-patch: %s\n", patched.error().describe().c_str());
      return 1;
    }
    result = std::move(patched->value);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string yaml = to_yaml(result);
  std::fwrite(yaml.data(), 1, yaml.size(), stdout);
  std::fprintf(stderr, "n=%ld ops_per_sec=%.0f per_op_us=%.3f\n", n, n / seconds, seconds * 1e6 / n);
  return 0;
}
