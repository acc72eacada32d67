// sindri-bench-render: the same interface and output as the Tera reference
// renderer (shared/tools/tera-ref), so that the two can be compared run for run.
//
// usage: sindri-bench-render TEMPLATE_FILE CONTEXT_JSON_FILE [ITERATIONS] [--cached]
//
// Prints the rendered output once to stdout (or "ERROR parse: ..." / "ERROR
// render: ...", exit 2 / 3), then, with ITERATIONS, times ITERATIONS renders
// and prints on stderr
//   sindri iters=N cached=true|false secs=S per_render_us=X bytes=B
// Without --cached each render compiles the template again, as Brokkr's
// render_template does; with --cached it is compiled once.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "tera/tera.hpp"
#include "value/json.hpp"

namespace {

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "sindri-bench-render: %s\n", message.c_str());
  std::exit(1);
}

std::string slurp(const char* path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) die(std::string("cannot read ") + what + " " + path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void print_stdout(std::string_view s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace sindri;
  std::vector<std::string> positional;
  bool cached = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--cached") {
      cached = true;
    } else {
      positional.emplace_back(arg);
    }
  }
  if (positional.size() < 2 || positional.size() > 3) {
    std::fprintf(stderr, "usage: sindri-bench-render TEMPLATE CONTEXT.json [ITERATIONS] [--cached]\n");
    return 1;
  }
  size_t iters = 0;
  if (positional.size() == 3) {
    char* end = nullptr;
    const unsigned long long n = std::strtoull(positional[2].c_str(), &end, 10);
    if (end == positional[2].c_str() || *end != '\0') die("ITERATIONS must be a number: " + positional[2]);
    iters = static_cast<size_t>(n);
  }

  const std::string source = slurp(positional[0].c_str(), "template");
  const std::string context_text = slurp(positional[1].c_str(), "context");
  auto context = parse_json(context_text);
  if (!context) die("json: " + context.error().describe());
  if (!context->is_object()) die("object context: the context is not a JSON object");
  const Value& ctx = *context;

  auto tpl = tera::compile("t", source);
  if (!tpl) {
    std::printf("ERROR parse: %s\n", tpl.error().describe().c_str());
    return 2;
  }
  auto first = tera::render(**tpl, ctx);
  if (!first) {
    std::printf("ERROR render: %s\n", first.error().describe().c_str());
    return 3;
  }
  print_stdout(*first);

  if (iters > 0) {
    const auto t0 = std::chrono::steady_clock::now();
    size_t bytes = 0;
    for (size_t i = 0; i < iters; ++i) {
      if (cached) {
        auto out = tera::render(**tpl, ctx);
        if (!out) die(out.error().describe());
        bytes += out->size();
      } else {
        auto fresh = tera::compile("t", source);
        if (!fresh) die(fresh.error().describe());
        auto out = tera::render(**fresh, ctx);
        if (!out) die(out.error().describe());
        bytes += out->size();
      }
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "sindri iters=%zu cached=%s secs=%.4f per_render_us=%.2f bytes=%zu\n", iters,
                 cached ? "true" : "false", secs, secs * 1e6 / static_cast<double>(iters), bytes);
  }
  return 0;
}
