#pragma once
// Templates linked into an environment: each knows its parents and, for
// every block it defines, the definitions of the same block up the chain.

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tera/template.hpp"

namespace sindri::tera {

struct LinkedTemplate {
  TemplatePtr tpl;
  std::vector<const LinkedTemplate*> parents;  // closest first
  // block name -> (template, block node), this template's own first
  std::unordered_map<std::string_view, std::vector<std::pair<const LinkedTemplate*, const Node*>>> blocks;
};

struct Registry {
  std::unordered_map<std::string, LinkedTemplate> templates;
  const LinkedTemplate* find(std::string_view name) const {
    auto it = templates.find(std::string(name));
    return it == templates.end() ? nullptr : &it->second;
  }
};

// Fills parents and blocks of every template and returns what keeps them
// from linking, sorted by template name, then position: each parent or
// imported template that is absent, and each circular extends (once per
// cycle). Empty when all link; otherwise only the templates whose chain of
// parents is whole are linked.
std::vector<TemplateError> link(Registry& registry);

// The includes that name only absent templates and do not `ignore missing`
// (in a child template, only those in its blocks and macros: the rest never
// renders), as render errors sorted as link() sorts.
std::vector<TemplateError> missing_includes(const Registry& registry);

// What rendering such an include reports.
std::string missing_include_message(const Node& include);

// Links a lone template (no parents) so that it can be rendered by itself.
void link_alone(LinkedTemplate& linked);

Result<std::string, TemplateError> render_linked(const Registry& registry, const LinkedTemplate& tpl,
                                                 const Value& context, const RenderOptions& options);

}  // namespace sindri::tera
