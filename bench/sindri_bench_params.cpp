// sindri-bench-params: the Sindri side of bench/params_vs_python.sh.
//
//   sindri-bench-params validate SCHEMA.json INSTANCE.json N
//       compiles the schema once, then validates the instance N times
//       (every violation collected, formats checked);
//   sindri-bench-params yaml STREAM.yaml N
//       parses the multi-document stream N times.
//
// Reading the files is not timed. Prints the best of the N runs, in
// seconds, on one line; exits 1 when the instance does not validate, so that
// a broken schema cannot make the benchmark look fast.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "schema/schema.hpp"
#include "value/json.hpp"
#include "value/yaml/yaml.hpp"

namespace {

using Clock = std::chrono::steady_clock;

std::string slurp(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "sindri-bench-params: cannot read %s\n", path);
    std::exit(1);
  }
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

sindri::Value json_file(const char* path) {
  auto parsed = sindri::parse_json(slurp(path));
  if (!parsed) {
    std::fprintf(stderr, "sindri-bench-params: %s: %s\n", path, parsed.error().describe().c_str());
    std::exit(1);
  }
  return *parsed;
}

template <class Work>
double best_of(long runs, Work work) {
  double best = 1e30;
  for (long i = 0; i < runs; ++i) {
    const auto start = Clock::now();
    work();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  return best;
}

int bench_validate(const char* schema_path, const char* instance_path, long runs) {
  auto compiled = sindri::schema::compile_schema(json_file(schema_path));
  if (!compiled) {
    std::fprintf(stderr, "sindri-bench-params: %s\n", compiled.error().describe().c_str());
    return 1;
  }
  const sindri::Value instance = json_file(instance_path);
  size_t violations = 0;
  const double best = best_of(runs, [&] { violations += sindri::schema::validate(*compiled, instance).size(); });
  if (violations != 0) {
    for (const auto& v : sindri::schema::validate(*compiled, instance)) std::fprintf(stderr, "%s\n", v.describe().c_str());
    return 1;
  }
  std::printf("%.9f\n", best);
  return 0;
}

int bench_yaml(const char* stream_path, long runs) {
  const std::string text = slurp(stream_path);
  size_t documents = 0;
  bool failed = false;
  const double best = best_of(runs, [&] {
    auto stream = sindri::parse_yaml_stream(text, stream_path);
    if (!stream) {
      std::fprintf(stderr, "%s\n", stream.error().describe().c_str());
      failed = true;
      return;
    }
    documents = stream->size();
  });
  if (failed) return 1;
  std::fprintf(stderr, "sindri-bench-params: %zu documents\n", documents);
  std::printf("%.9f\n", best);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "validate" && argc == 5) return bench_validate(argv[2], argv[3], std::atol(argv[4]));
  if (mode == "yaml" && argc == 4) return bench_yaml(argv[2], std::atol(argv[3]));
  std::fprintf(stderr,
               "usage: sindri-bench-params validate SCHEMA.json INSTANCE.json N\n"
               "       sindri-bench-params yaml STREAM.yaml N\n");
  return 2;
}
