#include "tera/variables.hpp"

#include <algorithm>
#include <string_view>

#include "tera/lexer.hpp"
#include "tera/template.hpp"

namespace sindri::tera {

namespace {

// Mirrors the renderer's frames: a read looks through the innermost frames
// out to the first macro or origin frame; `set` binds in the innermost frame,
// `set_global` in the innermost frame that is not a loop.
class VariableFinder {
 public:
  explicit VariableFinder(const Template& tpl) : tpl_(tpl) {}

  std::vector<VariableRead> run() {
    frames_.push_back(Frame{false, {}});
    walk_body(tpl_.ast);
    for (const auto& entry : tpl_.macros) {
      const MacroDefinition& macro = *entry.second;
      Frame frame{false, {}};
      for (const MacroParam& p : macro.params) {
        if (p.default_value) walk_expr(*p.default_value);
        frame.names.push_back(p.name);
      }
      frames_.assign(1, std::move(frame));
      walk_body(macro.body);
    }
    return std::move(reads_);
  }

 private:
  struct Frame {
    bool loop;
    std::vector<std::string_view> names;  // views into the template's source
  };

  bool bound(std::string_view name) const {
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) {
      if (std::find(it->names.begin(), it->names.end(), name) != it->names.end()) return true;
      if (!it->loop) break;
    }
    return false;
  }

  void bind(std::string_view name, bool global) {
    auto frame = frames_.rbegin();
    while (global && frame->loop) ++frame;
    frame->names.push_back(name);
  }

  void read(const Expr& path) {
    if (path.root == "__tera_context" || bound(path.root)) return;
    const LineColumn at = line_column(tpl_.source, path.span.offset);
    reads_.push_back(VariableRead{std::string(path.root), std::string(path.dotted), Location{at.line, at.column}});
  }

  void walk_expr(const Expr& e) {
    if (e.kind == Expr::Kind::Path) {
      read(e);
      for (const PathSegment& seg : e.segments) {
        if (seg.dynamic) walk_expr(*seg.dynamic);
      }
    }
    if (e.lhs) walk_expr(*e.lhs);
    if (e.rhs) walk_expr(*e.rhs);
    for (const ExprPtr& item : e.items) walk_expr(*item);
    for (const NamedArg& a : e.args) walk_expr(*a.value);
    for (const FilterCall& f : e.filters) walk_filter(f);
  }

  void walk_filter(const FilterCall& f) {
    for (const NamedArg& a : f.args) walk_expr(*a.value);
  }

  void walk_body(const Body& body) {
    for (const NodePtr& n : body) walk_node(*n);
  }

  void walk_node(const Node& n) {
    switch (n.kind) {
      case Node::Kind::For: {
        walk_expr(*n.expr);  // the container is read outside the loop
        Frame frame{true, {n.value_var, "loop"}};
        if (!n.key_var.empty()) frame.names.push_back(n.key_var);
        frames_.push_back(std::move(frame));
        walk_body(n.body);
        frames_.pop_back();
        walk_body(n.empty_body);
        return;
      }
      case Node::Kind::Set:
        walk_expr(*n.expr);
        bind(n.set_name, n.global);
        return;
      case Node::Kind::FilterSection:
        walk_filter(n.filter);
        break;
      default:
        if (n.expr) walk_expr(*n.expr);
        break;
    }
    for (const IfBranch& b : n.branches) {
      walk_expr(*b.condition);
      walk_body(b.body);
    }
    walk_body(n.else_body);
    walk_body(n.body);
  }

  const Template& tpl_;
  std::vector<Frame> frames_;
  std::vector<VariableRead> reads_;
};

}  // namespace

std::vector<VariableRead> context_variables(const Template& tpl) { return VariableFinder(tpl).run(); }

}  // namespace sindri::tera
