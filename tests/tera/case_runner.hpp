#pragma once
// Renders one conformance case folder as the corpus test and the differential
// test against Tera both need it.
//
// A case folder holds template.tera and context.json, or, for a case of
// several templates, templates/ and a file `main` naming the one to render.

#include <filesystem>
#include <string>

namespace sindri::tera_cases {

// The output, or the kind of error ("parse_error", "render_error",
// "bad_context") with its message.
struct Outcome {
  std::string output;
  std::string error_kind;
  std::string message;
};

Outcome run_case(const std::filesystem::path& dir);

std::string read_file(const std::filesystem::path& path);

}  // namespace sindri::tera_cases
