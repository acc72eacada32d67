#pragma once
// A compiled template: its syntax tree and what the environment needs to link
// it with others (parent, blocks, macros, imports, includes).

#include <deque>
#include <map>
#include <string>
#include <vector>

#include "tera/ast.hpp"
#include "tera/tera.hpp"

namespace sindri::tera {

class Template {
 public:
  std::string name;
  std::string source;
  Arena arena;  // holds `ast`, so declared before it
  Body ast;
  std::deque<Value> literals;  // the tree's literal values (a deque: they never move)
  std::string parent;  // `{% extends %}`, empty if none
  Span parent_tag;     // that tag, for the linker's errors
  // The blocks defined at the top level and inside other blocks (not those
  // inside an `if` or a filter section: Tera does not register them).
  std::map<std::string, const Node*, std::less<>> blocks;
  std::map<std::string, const MacroDefinition*, std::less<>> macros;
  struct Import {
    std::string file;
    std::string space;  // the namespace
    Span tag;
  };
  std::vector<Import> imports;
  struct Include {
    const Node* tag;
    // Outside every block and macro: a child template never renders it.
    bool outside_blocks_and_macros;
  };
  std::vector<Include> includes;  // every `{% include %}`, macro bodies included, in source order

  TemplateError error_at(ErrorKind kind, Span span, std::string message, std::string expression = {}) const;
};

// Parses `source`; on success `out` holds the syntax tree and the tables.
Result<Ok, TemplateError> parse_template(Template& out);

// Applies `{%-`/`-%}` whitespace control to a parsed body, as Tera does.
void remove_whitespace(Body& nodes, const WS* body_ws);

// Tells each variable read which of the renderer's frames can hold it
// (scopes.cpp). Runs once, after parsing.
void resolve_scopes(Template& tpl);

}  // namespace sindri::tera
