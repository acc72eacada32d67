#include "tera/linked.hpp"

namespace sindri::tera {

namespace {

void collect_own_blocks(LinkedTemplate& linked) {
  linked.blocks.clear();
  for (const auto& [name, node] : linked.tpl->blocks) {
    linked.blocks[name].emplace_back(&linked, node);
  }
}

}  // namespace

void link_alone(LinkedTemplate& linked) {
  linked.parents.clear();
  collect_own_blocks(linked);
}

Result<Ok, TemplateError> link(Registry& registry) {
  for (auto& [name, linked] : registry.templates) {
    const Template& tpl = *linked.tpl;
    for (const auto& [file, space] : tpl.imports) {
      if (!registry.find(file)) {
        TemplateError e;
        e.kind = ErrorKind::Parse;
        e.template_name = name;
        e.message = "Template `" + name + "` loads macros from `" + file + "` which isn't present";
        return e;
      }
    }
    linked.parents.clear();
    const LinkedTemplate* current = &linked;
    while (!current->tpl->parent.empty()) {
      const LinkedTemplate* parent = registry.find(current->tpl->parent);
      if (!parent) {
        TemplateError e;
        e.kind = ErrorKind::Parse;
        e.template_name = current->tpl->name;
        e.message = "Template '" + current->tpl->name + "' is inheriting from '" + current->tpl->parent +
                    "', which doesn't exist or isn't loaded.";
        return e;
      }
      if (parent == &linked || linked.parents.size() > registry.templates.size()) {
        TemplateError e;
        e.kind = ErrorKind::Parse;
        e.template_name = name;
        e.message = "Circular extend detected for template '" + name + "'. Inheritance chain: `" + name;
        for (const LinkedTemplate* p : linked.parents) e.message += "` > `" + p->tpl->name;
        e.message += "` > `" + parent->tpl->name + "`";
        return e;
      }
      linked.parents.push_back(parent);
      current = parent;
    }
    collect_own_blocks(linked);
    for (auto& [block_name, definitions] : linked.blocks) {
      for (const LinkedTemplate* parent : linked.parents) {
        auto it = parent->tpl->blocks.find(block_name);
        if (it != parent->tpl->blocks.end()) definitions.emplace_back(parent, it->second);
      }
    }
  }
  return Ok{};
}

}  // namespace sindri::tera
