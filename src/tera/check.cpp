// What can be known about a template before any data arrives: the syntax,
// names of filters, tests, functions, arguments and macros that do not exist
// (Tera itself only finds these while rendering), and the other templates
// it names.

#include <algorithm>

#include "tera/template.hpp"
#include "value/text_position.hpp"

namespace sindri::tera {

namespace {

class Checker {
 public:
  Checker(const Template& tpl, const CheckOptions& options) : tpl_(tpl), options_(options) {}

  std::vector<TemplateError> run() {
    walk_body(tpl_.ast);
    for (const auto& entry : tpl_.macros) walk_body(entry.second->body);
    return std::move(errors_);
  }

 private:
  void report(Span span, std::string message) {
    errors_.push_back(tpl_.error_at(ErrorKind::Parse, span, std::move(message),
                                    tpl_.source.substr(span.offset, span.length)));
  }

  void check_names(Span span, const char* what, std::string_view name, const AstList<NamedArg>& args,
                   const std::vector<std::string_view>& params) {
    for (const NamedArg& a : args) {
      if (std::find(params.begin(), params.end(), a.name) != params.end()) continue;
      std::string accepted;
      for (std::string_view p : params) accepted += (accepted.empty() ? "`" : ", `") + std::string(p) + "`";
      report(span, std::string(what) + " `" + std::string(name) + "` has no argument `" + std::string(a.name) + "`" +
                       (accepted.empty() ? " (it takes none)" : " (it takes " + accepted + ")"));
    }
  }

  void walk_filter(const FilterCall& f) {
    if (!f.def) {
      report(f.span, "unknown filter `" + std::string(f.name) + "`");
    } else {
      check_names(f.span, "filter", f.name, f.args, f.def->params);
    }
    for (const NamedArg& a : f.args) walk_expr(*a.value);
  }

  void walk_expr(const Expr& e) {
    for (const FilterCall& f : e.filters) walk_filter(f);
    switch (e.kind) {
      case Expr::Kind::Path:
        for (const PathSegment& seg : e.segments) {
          if (seg.dynamic) walk_expr(*seg.dynamic);
        }
        break;
      case Expr::Kind::Call:
        if (!e.function_def) {
          report(e.span, "unknown function `" + std::string(e.name) + "`");
        } else {
          check_names(e.span, "function", e.name, e.args, e.function_def->params);
          if (options_.isolated && !e.function_def->reads.empty()) report(e.span, isolation_message(*e.function_def));
        }
        for (const NamedArg& a : e.args) walk_expr(*a.value);
        break;
      case Expr::Kind::Test:
        if (!e.test_def) {
          report(e.span, "unknown test `" + std::string(e.name) + "`");
        } else if (e.items.size() < e.test_def->min_args || e.items.size() > e.test_def->max_args) {
          report(e.span, "test `" + std::string(e.name) + "` takes " + std::to_string(e.test_def->min_args) +
                             (e.test_def->max_args != e.test_def->min_args
                                  ? " to " + std::to_string(e.test_def->max_args)
                                  : std::string()) +
                             " argument(s), got " + std::to_string(e.items.size()));
        }
        for (const ExprPtr& a : e.items) walk_expr(*a);
        break;
      case Expr::Kind::MacroCall:
        check_macro_call(e);
        for (const NamedArg& a : e.args) walk_expr(*a.value);
        break;
      default:
        for (const ExprPtr& item : e.items) walk_expr(*item);
        if (e.lhs) walk_expr(*e.lhs);
        if (e.rhs) walk_expr(*e.rhs);
        break;
    }
  }

  // Only `self::` can be checked without the other templates.
  void check_macro_call(const Expr& e) {
    if (e.space != "self") return;
    auto it = tpl_.macros.find(e.name);
    if (it == tpl_.macros.end()) {
      report(e.span, "macro `self::" + std::string(e.name) + "` is not defined in this template");
      return;
    }
    std::vector<std::string_view> params;
    for (const MacroParam& p : it->second->params) params.push_back(p.name);
    check_names(e.span, "macro", e.name, e.args, params);
    for (const MacroParam& p : it->second->params) {
      bool given = std::any_of(e.args.begin(), e.args.end(), [&](const NamedArg& a) { return a.name == p.name; });
      if (!given && !p.default_value) report(e.span, "macro `" + std::string(e.name) + "` needs the argument `" + std::string(p.name) + "`");
    }
  }

  void walk_body(const Body& body) {
    for (const NodePtr& n : body) {
      if (n->expr) walk_expr(*n->expr);
      for (const IfBranch& b : n->branches) {
        walk_expr(*b.condition);
        walk_body(b.body);
      }
      walk_body(n->else_body);
      walk_body(n->body);
      walk_body(n->empty_body);
      if (n->kind == Node::Kind::FilterSection) walk_filter(n->filter);
    }
  }

  const Template& tpl_;
  const CheckOptions& options_;
  std::vector<TemplateError> errors_;
};

void collect_references(const Template& tpl, const Body& body, std::vector<TemplateReference>& out) {
  for (const NodePtr& n : body) {
    const auto add = [&](TemplateReference::Kind kind, std::string_view name) {
      const LineColumn at = line_column(tpl.source, n->span.offset);
      out.push_back(TemplateReference{kind, std::string(name), n->ignore_missing, Location{at.line, at.column}});
    };
    switch (n->kind) {
      case Node::Kind::Extends:
        add(TemplateReference::Kind::Extends, n->text);
        break;
      case Node::Kind::Import:
        add(TemplateReference::Kind::Import, n->text);
        break;
      case Node::Kind::Include:
        for (std::string_view name : n->include_names) add(TemplateReference::Kind::Include, name);
        break;
      case Node::Kind::MacroDef:
        collect_references(tpl, n->macro->body, out);
        break;
      default:
        break;
    }
    for (const IfBranch& b : n->branches) collect_references(tpl, b.body, out);
    collect_references(tpl, n->else_body, out);
    collect_references(tpl, n->body, out);
    collect_references(tpl, n->empty_body, out);
  }
}

}  // namespace

std::vector<TemplateError> check(std::string_view name, std::string_view source) {
  Result<TemplatePtr, TemplateError> compiled = compile(name, source);
  if (!compiled) return {std::move(compiled).error()};
  return check(**compiled);
}

std::vector<TemplateError> check(const Template& tpl, const CheckOptions& options) {
  return Checker(tpl, options).run();
}

std::vector<TemplateReference> referenced_templates(const Template& tpl) {
  std::vector<TemplateReference> references;
  collect_references(tpl, tpl.ast, references);
  return references;
}

}  // namespace sindri::tera
