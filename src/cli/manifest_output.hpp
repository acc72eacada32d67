#pragma once
// Rendered text as the rendering verbs print it (`sindri render`, `sindri
// template render`): -o raw as it is; -o yaml and -o json as Kubernetes
// manifests, each checked and re-emitted; --output-dir one file per
// manifest.

#include <string>

#include <CLI/CLI.hpp>

#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::cli {

// What keeps a document from being a Kubernetes manifest ("is a list, not a
// mapping", "has no `kind` string": apiVersion, kind and metadata.name must
// be strings that are not empty); "" for nothing.
std::string manifest_problem(const Value& manifest);

// -o raw|yaml|json (default raw) and --output-dir DIR.
void add_rendered_output_options(CLI::App& command, std::string& output, std::string& output_dir);

// Before rendering: --output-dir writes YAML files, so -o json cannot go with it.
Status check_rendered_output(const std::string& output, const std::string& output_dir);

// -o raw prints `text` exactly (no newline added). Otherwise the text is read
// as a YAML stream, empty documents dropped, and each document must be a
// mapping with apiVersion, kind and metadata.name strings, else
// "SOURCE (rendered):LINE: document N has no `kind` string". -o yaml prints
// them as a YAML stream, -o json as one object or a kubectl-style List;
// with `output_dir`, each goes to DIR/<kind>-<name>.yaml and the paths
// written are printed.
Status print_rendered(const std::string& text, const std::string& source, const std::string& output,
                      const std::string& output_dir);

}  // namespace sindri::cli
