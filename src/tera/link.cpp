#include <algorithm>
#include <tuple>

#include "tera/linked.hpp"

namespace sindri::tera {

namespace {

void collect_own_blocks(LinkedTemplate& linked) {
  linked.blocks.clear();
  for (const auto& [name, node] : linked.tpl->blocks) {
    linked.blocks[name].emplace_back(&linked, node);
  }
}

// `name` is the template's name in the registry, which need not be the name
// it was compiled under.
TemplateError link_error(const std::string& name, const Template& tpl, Span tag, std::string message,
                         ErrorKind kind = ErrorKind::Parse) {
  TemplateError e = tpl.error_at(kind, tag, std::move(message));
  e.template_name = name;
  return e;
}

struct ChainLink {
  const std::string* name;
  const LinkedTemplate* linked;
};

TemplateError circular_extend(std::vector<ChainLink> cycle) {
  // Reported on the member whose name sorts first, whichever was met first.
  std::rotate(cycle.begin(),
              std::min_element(cycle.begin(), cycle.end(),
                               [](const ChainLink& a, const ChainLink& b) { return *a.name < *b.name; }),
              cycle.end());
  const ChainLink& first = cycle.front();
  std::string message = "Circular extend detected for template '" + *first.name + "'. Inheritance chain: `";
  for (const ChainLink& member : cycle) message += *member.name + "` > `";
  message += *first.name + "`";
  return link_error(*first.name, *first.linked->tpl, first.linked->tpl->parent_tag, std::move(message));
}

enum class Chain { Unknown, Walking, Sound, Broken };

// Follows every template's `{% extends %}` chain once. A missing parent is
// reported on the template whose tag names it, a cycle once; a template that
// inherits from either is Broken without an error of its own, since fixing
// the cause fixes it.
std::unordered_map<const LinkedTemplate*, Chain> check_chains(const Registry& registry,
                                                              std::vector<TemplateError>& errors) {
  std::unordered_map<const LinkedTemplate*, Chain> chains;
  for (const auto& [start_name, start] : registry.templates) {
    std::vector<ChainLink> walked;
    ChainLink at{&start_name, &start};
    Chain outcome = Chain::Sound;
    while (true) {
      Chain& state = chains[at.linked];
      if (state == Chain::Sound || state == Chain::Broken) {
        outcome = state;
        break;
      }
      if (state == Chain::Walking) {
        auto first = std::find_if(walked.begin(), walked.end(),
                                  [&](const ChainLink& link) { return link.linked == at.linked; });
        errors.push_back(circular_extend(std::vector<ChainLink>(first, walked.end())));
        outcome = Chain::Broken;
        break;
      }
      state = Chain::Walking;
      walked.push_back(at);
      const Template& tpl = *at.linked->tpl;
      if (tpl.parent.empty()) break;
      const LinkedTemplate* parent = registry.find(tpl.parent);
      if (!parent) {
        errors.push_back(link_error(*at.name, tpl, tpl.parent_tag,
                                    "Template '" + *at.name + "' is inheriting from '" + tpl.parent +
                                        "', which doesn't exist or isn't loaded."));
        outcome = Chain::Broken;
        break;
      }
      at = ChainLink{&tpl.parent, parent};
    }
    for (const ChainLink& link : walked) chains[link.linked] = outcome;
  }
  return chains;
}

void check_imports(const Registry& registry, std::vector<TemplateError>& errors) {
  for (const auto& [name, linked] : registry.templates) {
    for (const Template::Import& import : linked.tpl->imports) {
      if (registry.find(import.file)) continue;
      errors.push_back(link_error(
          name, *linked.tpl, import.tag,
          "Template `" + name + "` loads macros from `" + import.file + "` which isn't present"));
    }
  }
}

// For a template whose chain check_chains found Sound.
void link_chain(const Registry& registry, LinkedTemplate& linked) {
  for (const Template* tpl = linked.tpl.get(); !tpl->parent.empty(); tpl = linked.parents.back()->tpl.get()) {
    linked.parents.push_back(registry.find(tpl->parent));
  }
  for (auto& [block_name, definitions] : linked.blocks) {
    for (const LinkedTemplate* parent : linked.parents) {
      auto it = parent->tpl->blocks.find(block_name);
      if (it != parent->tpl->blocks.end()) definitions.emplace_back(parent, it->second);
    }
  }
}

void sort_by_template_and_position(std::vector<TemplateError>& errors) {
  std::stable_sort(errors.begin(), errors.end(), sorts_before);
}

}  // namespace

bool sorts_before(const TemplateError& a, const TemplateError& b) {
  return std::tie(a.template_name, a.location.line, a.location.column) <
         std::tie(b.template_name, b.location.line, b.location.column);
}

void link_alone(LinkedTemplate& linked) {
  linked.parents.clear();
  collect_own_blocks(linked);
}

std::vector<TemplateError> link(Registry& registry) {
  std::vector<TemplateError> errors;
  check_imports(registry, errors);
  const auto chains = check_chains(registry, errors);
  for (auto& [name, linked] : registry.templates) {
    link_alone(linked);
    if (chains.at(&linked) == Chain::Sound) link_chain(registry, linked);
  }
  sort_by_template_and_position(errors);
  return errors;
}

std::string missing_include_message(const Node& include) {
  std::string names;
  for (std::string_view name : include.include_names) names += (names.empty() ? "" : ", ") + std::string(name);
  return "Template '[" + names + "]' not found";
}

std::vector<TemplateError> missing_includes(const Registry& registry) {
  std::vector<TemplateError> errors;
  for (const auto& [name, linked] : registry.templates) {
    const bool has_parent = !linked.tpl->parent.empty();
    for (const Template::Include& include : linked.tpl->includes) {
      const Node& tag = *include.tag;
      if (tag.ignore_missing || (has_parent && include.outside_blocks_and_macros)) continue;
      const bool any_present = std::any_of(tag.include_names.begin(), tag.include_names.end(),
                                           [&](std::string_view included) { return registry.find(included); });
      if (any_present) continue;
      // Reported as the render that reaches it would report it.
      errors.push_back(link_error(name, *linked.tpl, tag.span, missing_include_message(tag), ErrorKind::Render));
    }
  }
  sort_by_template_and_position(errors);
  return errors;
}

}  // namespace sindri::tera
