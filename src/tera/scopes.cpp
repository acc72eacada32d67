// Which of the renderer's frames may hold a variable, worked out once per
// template so that a lookup need not ask every frame at every render.
//
// The renderer looks a name up from the innermost frame outwards to the
// first origin or macro frame, then in the context. While a template's own
// code runs, the frames above that origin or macro frame are exactly the for
// loops written around the code, and a frame can only hold names bound in
// it: a loop's variables and `loop`, the names `set` in its body (outside
// any nested loop), and for the origin or macro frame the names `set` outside
// any loop, every `set_global` and a macro's parameters. So a read may pass
// over the innermost loops that bind nothing of its name, and a name no frame
// binds is read from the context directly.
//
// Other templates' code can run on these frames only through blocks (a
// child's block body runs where the parent's block is, and a `set` in it
// stays in the parent's frame) and includes (the included template runs on
// the includer's frames). A scope with a block in it keeps the full lookup
// for every read; the renderer keeps it for included code.

#include <algorithm>
#include <optional>
#include <string_view>
#include <vector>

#include "tera/template.hpp"

namespace sindri::tera {

namespace {

using Names = std::vector<std::string_view>;

// What a frame may hold: a loop's own variables, and names bound by `set`
// (or, for the origin or a macro, parameters).
struct FrameNames {
  bool loop = false;
  std::string_view value_var;
  std::string_view key_var;  // empty unless `for k, v in`
  Names locals;

  // How this frame binds `name`: not at all, one way, or several (Frames:
  // the renderer then asks the frame as it always does).
  std::optional<VariableBinding> binding(std::string_view name) const {
    int ways = 0;
    VariableBinding found = VariableBinding::Frames;
    auto add = [&](bool binds, VariableBinding b) {
      if (!binds) return;
      ++ways;
      found = b;
    };
    add(std::find(locals.begin(), locals.end(), name) != locals.end(), VariableBinding::Frames);
    add(loop && name == value_var, VariableBinding::LoopValue);
    add(loop && !key_var.empty() && name == key_var, VariableBinding::LoopKey);
    add(loop && name == "loop", VariableBinding::LoopMagic);
    if (ways == 0) return std::nullopt;
    return ways == 1 ? found : VariableBinding::Frames;
  }
};

class ScopeResolver {
 public:
  // One scope: the template's top-level code, or a macro body.
  void resolve(const Body& body, Names base) {
    base_ = FrameNames{};
    base_.locals = std::move(base);
    loops_.clear();
    has_block_ = false;
    collect(body, base_);
    if (has_block_) return;
    next_loop_ = 0;
    frames_.assign(1, &base_);
    mark(body);
  }

 private:
  // First pass: the names each frame may hold. Loops are numbered in the
  // order both passes meet them.
  void collect(const Body& body, FrameNames& frame) {
    for (const Node* n : body) {
      switch (n->kind) {
        case Node::Kind::For: {
          FrameNames own{true, n->value_var, n->key_var, {}};
          const size_t index = loops_.size();
          loops_.emplace_back();
          collect(n->body, own);
          loops_[index] = std::move(own);
          collect(n->empty_body, frame);  // runs before the loop's frame exists
          break;
        }
        case Node::Kind::Set:
          (n->global ? base_ : frame).locals.push_back(n->set_name);
          break;
        case Node::Kind::If:
          for (const IfBranch& b : n->branches) collect(b.body, frame);
          collect(n->else_body, frame);
          break;
        case Node::Kind::FilterSection:
          collect(n->body, frame);
          break;
        case Node::Kind::Block:
        case Node::Kind::Super:
          has_block_ = true;
          break;
        default:
          break;
      }
    }
  }

  // Second pass: each read learns how many frames it may pass over.
  void mark(const Body& body) {
    for (const Node* n : body) {
      switch (n->kind) {
        case Node::Kind::For: {
          mark(*n->expr);  // the container is read before the loop's frame exists
          frames_.push_back(&loops_[next_loop_++]);
          mark(n->body);
          frames_.pop_back();
          mark(n->empty_body);
          break;
        }
        case Node::Kind::If:
          for (const IfBranch& b : n->branches) {
            mark(*b.condition);
            mark(b.body);
          }
          mark(n->else_body);
          break;
        case Node::Kind::FilterSection:
          for (const NamedArg& a : n->filter.args) mark(*a.value);
          mark(n->body);
          break;
        case Node::Kind::Print:
        case Node::Kind::Set:
          mark(*n->expr);
          break;
        default:
          break;
      }
    }
  }

  void mark(Expr& e) {
    if (e.kind == Expr::Kind::Path) {
      resolve_read(e);
      for (PathSegment& seg : e.segments) {
        if (seg.dynamic) mark(*seg.dynamic);
      }
    }
    if (e.lhs) mark(*e.lhs);
    if (e.rhs) mark(*e.rhs);
    for (Expr* item : e.items) mark(*item);
    for (NamedArg& a : e.args) mark(*a.value);
    for (FilterCall& f : e.filters) {
      for (NamedArg& a : f.args) mark(*a.value);
    }
  }

  void resolve_read(Expr& path) {
    // The renderer makes `__tera_context` up in its walk over the frames.
    if (path.root == "__tera_context") return;
    const size_t innermost = frames_.size() - 1;
    for (size_t i = frames_.size(); i-- > 0;) {
      if (const std::optional<VariableBinding> binding = frames_[i]->binding(path.root)) {
        path.frames_to_skip = static_cast<uint32_t>(innermost - i);
        path.binding = *binding;
        return;
      }
    }
    path.binding = VariableBinding::Context;
  }

  FrameNames base_;
  std::vector<FrameNames> loops_;
  bool has_block_ = false;
  size_t next_loop_ = 0;
  std::vector<const FrameNames*> frames_;  // the base, then the loops around the code being marked
};

}  // namespace

void resolve_scopes(Template& tpl) {
  ScopeResolver resolver;
  resolver.resolve(tpl.ast, {});
  for (const auto& entry : tpl.macros) {
    const MacroDefinition& macro = *entry.second;
    Names params;
    for (const MacroParam& p : macro.params) params.push_back(p.name);
    resolver.resolve(macro.body, std::move(params));
  }
}

}  // namespace sindri::tera
