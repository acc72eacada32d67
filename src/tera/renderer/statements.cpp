// Statements and macros: the nodes of a template body, and the entry point.

#include "tera/renderer/renderer.hpp"

namespace sindri::tera::rendering {

bool Renderer::run(std::string& out) {
  Frame& origin = push_frame(FrameKind::Origin, &rendered_);
  (void)origin;
  source_ = root_->tpl.get();
  const bool ok = render_body(root_->tpl->ast, out);
  // A limit hit where Tera ignores failures (an `if` on a failing filter)
  // still ends the render; the error was recorded where it was hit.
  return ok && !spent();
}

const Renderer::NamespaceMap& Renderer::namespaces(const LinkedTemplate* tpl) {
  auto it = namespace_cache_.find(tpl);
  if (it != namespace_cache_.end()) return it->second;
  NamespaceMap& map = namespace_cache_[tpl];
  if (!tpl->tpl->macros.empty()) map.emplace("self", tpl);
  for (const Template::Import& import : tpl->tpl->imports) {
    const LinkedTemplate* imported = registry_.find(import.file);
    if (!imported || imported == tpl) continue;
    map.emplace(import.space, imported);
    for (const auto& entry : namespaces(imported)) map.emplace(entry.first, entry.second);
  }
  for (const LinkedTemplate* parent : tpl->parents) {
    for (const auto& entry : namespaces(parent)) map.emplace(entry.first, entry.second);
  }
  return map;
}

const LinkedTemplate* Renderer::macro_scope() {
  if (current().kind == FrameKind::Macro) return current().active;
  if (!blocks_.empty()) return blocks_.back().tpl;
  if (&rendered_ != root_) return root_;
  return current().active;
}

bool Renderer::call_macro(const Expr& e, std::string& out) {
  const LinkedTemplate* scope = macro_scope();
  const NamespaceMap& map = namespaces(scope);
  auto ns = map.find(e.space);
  if (ns == map.end()) {
    return fail(e.span, "Macro namespace `" + std::string(e.space) + "` was not found in template `" + shown_name(*scope->tpl) +
                            "`. Have you maybe forgotten to import it, or misspelled it?");
  }
  const LinkedTemplate* owner = ns->second;
  auto def_it = owner->tpl->macros.find(e.name);
  if (def_it == owner->tpl->macros.end()) {
    return fail(e.span, "Macro `" + std::string(e.space) + "::" + std::string(e.name) + "` not found in template `" + shown_name(*scope->tpl) + "`");
  }
  const MacroDefinition& def = *def_it->second;
  if (macro_depth_ >= kMaxMacroDepth) {
    return fail(e.span, "Macro `" + std::string(e.space) + "::" + std::string(e.name) + "` recursed deeper than " +
                            std::to_string(kMaxMacroDepth) + " calls");
  }
  // Each parameter looks for its argument among all given.
  if (!charge(def.params.size() * e.args.size(), e.span)) return false;
  std::vector<std::pair<std::string_view, Value>> args;
  args.reserve(def.params.size());
  for (const MacroParam& p : def.params) {
    const NamedArg* given = nullptr;
    for (const NamedArg& a : e.args) {
      if (a.name == p.name) given = &a;
    }
    Value v;
    if (given) {
      if (!eval(*given->value, v)) return false;
    } else if (p.default_value) {
      v = *p.default_value->literal;
    } else {
      return fail(e.span, "Macro `" + std::string(e.name) + "` is missing the argument `" + std::string(p.name) + "`");
    }
    args.emplace_back(p.name, std::move(v));
  }
  if (!take_step(e.span)) return false;
  Frame& f = push_frame(FrameKind::Macro, owner);
  f.locals = std::move(args);
  const Template* saved = source_;
  source_ = owner->tpl.get();
  const bool saved_own_frames = own_frames_;
  own_frames_ = true;  // a macro frame ends every lookup
  ++macro_depth_;
  // The text is copied into the caller's: charged, a recursion that fans
  // out copies it once per level.
  bool ok = render_body(def.body, out) && charge(out.size(), e.span);
  --macro_depth_;
  own_frames_ = saved_own_frames;
  source_ = saved;
  pop_frame();
  return ok;
}

bool Renderer::render_body(const Body& body, std::string& out) {
  if (!body.empty() && !charge(body.size(), body.front()->span)) return false;
  for (const NodePtr& node : body) {
    // Text is most of a template: copy it without the full node dispatch.
    if (node->kind == Node::Kind::Text) {
      out += node->text;
      continue;
    }
    if (!render_node(*node, out)) return false;
    if (!check_output(out, node->span)) return false;
    if (should_break_body()) break;
  }
  return true;
}

bool Renderer::write_value(const Value& v, const Expr& e, std::string& out) {
  if (options_.autoescape && v.is_string() && (e.filters.empty() || e.filters.back().name != "safe")) {
    append_html_escaped(out, v.get_string());
    return true;
  }
  if (append_rendered(out, v, options_.max_output_bytes)) [[likely]] return true;
  return output_too_large(e.span);
}

bool Renderer::render_node(const Node& node, std::string& out) {
  switch (node.kind) {
    case Node::Kind::Text:
    case Node::Kind::Raw:
      out += node.text;
      return true;
    case Node::Kind::Print:
      return render_print(node, out);
    case Node::Kind::If:
      return render_if(node, out);
    case Node::Kind::For:
      return render_for(node, out);
    case Node::Kind::Set:
      return render_set(node);
    case Node::Kind::FilterSection:
      return render_filter_section(node, out);
    case Node::Kind::Include:
      return render_include(node, out);
    case Node::Kind::Block:
      return render_block(node, 0, out);
    case Node::Kind::Super:
      return render_super(node, out);
    case Node::Kind::Break:
    case Node::Kind::Continue:
      return render_loop_control(node);
    case Node::Kind::Extends:
      return fail(node.span, "Inheritance in included templates is currently not supported: extended `" +
                                 std::string(node.text) + "`");
    case Node::Kind::Comment:
    case Node::Kind::Import:
    case Node::Kind::MacroDef:
      return true;
  }
  return true;
}

bool Renderer::render_print(const Node& node, std::string& out) {
  const Expr& e = *node.expr;
  if (e.kind == Expr::Kind::Path && e.filters.empty() && !e.negated) {
    // A bare variable is written straight from where it lives.
    const Value* found = nullptr;
    if (!lookup_ref(e, found)) return false;
    if (found) return write_value(*found, e, out);
  }
  if (ends_in_plain_json_encode(e) && !e.negated && !options_.autoescape) return print_json(e, out);
  Value v;
  if (!eval(e, v)) return false;
  return write_value(v, e, out);
}

bool Renderer::ends_in_plain_json_encode(const Expr& e) {
  return !e.filters.empty() && e.filters.back().def && e.filters.back().name == "json_encode" &&
         e.filters.back().args.empty();
}

bool Renderer::print_json(const Expr& e, std::string& out) {
  Value v;
  bool settled = false;  // only for `not`, which does not come here
  if (!eval_unfiltered(e, v, settled)) return false;
  if (!apply_filters(e, e.filters.size() - 1, v)) return false;
  const FilterCall& encode = e.filters.back();
  const size_t before = out.size();
  if (!append_json_within(out, v, options_.max_output_bytes)) return output_too_large(encode.span);
  return charge(1 + out.size() - before, encode.span);  // the call, and the text written
}

bool Renderer::render_if(const Node& node, std::string& out) {
  for (const IfBranch& branch : node.branches) {
    bool b;
    if (!eval_bool(*branch.condition, b)) return false;
    if (b) return render_body(branch.body, out);
  }
  if (node.has_else) return render_body(node.else_body, out);
  return true;
}

bool Renderer::render_set(const Node& node) {
  Value v;
  if (!eval(*node.expr, v)) return false;
  Frame& frame = node.global ? global_frame() : current();
  if (!charge(frame.locals.size(), node.span)) return false;  // assign looks through them
  frame.assign(node.set_name, std::move(v));
  return true;
}

bool Renderer::render_filter_section(const Node& node, std::string& out) {
  std::string body;
  if (!render_body(node.body, body)) return false;
  if (node.filter.name == "safe") {
    out += body;
    return true;
  }
  Value v(body);
  if (!apply_filter(node.filter, v)) return false;
  if (append_rendered(out, v, options_.max_output_bytes)) return true;
  return output_too_large(node.span);
}

bool Renderer::render_loop_control(const Node& node) {
  for (size_t i = depth_; i-- > 0;) {
    if (frames_[i].kind == FrameKind::For) {
      if (i == depth_ - 1) {
        frames_[i].loop.state = node.kind == Node::Kind::Break ? LoopState::Break : LoopState::Continue;
      }
      return true;
    }
  }
  return fail(node.span, "`break` or `continue` outside of a for loop");
}

bool Renderer::render_for(const Node& node, std::string& out) {
  Value container;
  if (!eval(*node.expr, container)) return false;
  const Expr& c = *node.expr;
  std::string name = c.kind == Expr::Kind::Path   ? std::string(c.dotted)
                     : c.kind == Expr::Kind::Call ? std::string(c.name)
                     : c.kind == Expr::Kind::Array ? "an array literal"
                                                   : std::string();
  size_t length = 0;
  std::vector<size_t> starts;
  if (container.is_array() || container.is_string()) {
    if (!node.key_var.empty()) {
      return fail(c.span, "Tried to iterate using key value on variable `" + name + "`, but it isn't an object/map");
    }
    if (container.is_array()) {
      length = container.size();
    } else {
      if (!charge(builtins::unicode::kGraphemeSetupSteps + container.get_string().size(), c.span)) return false;
      starts = builtins::unicode::grapheme_starts(container.get_string());
      length = starts.size();
    }
  } else if (container.is_object()) {
    if (node.key_var.empty()) {
      return fail(c.span, "Tried to iterate using key value on variable `" + name + "`, but it is missing a key");
    }
    length = container.size();
  } else {
    return fail(c.span, "Tried to iterate on a container (`" + name + "`) that has a unsupported type");
  }
  if (length == 0) {
    return node.has_empty_body ? render_body(node.empty_body, out) : true;
  }
  Frame& f = push_frame(FrameKind::For, current().active);
  f.loop.key_var = node.key_var;
  f.loop.value_var = node.value_var;
  f.loop.container = std::move(container);
  f.loop.grapheme_starts = std::move(starts);
  f.loop.length = length;
  f.loop.state = LoopState::Normal;
  size_t frame_index = depth_ - 1;
  for (size_t i = 0; i < length; ++i) {
    if (!take_step(node.span)) return false;
    frames_[frame_index].loop.move_to(i);
    if (!render_body(node.body, out)) return false;
    if (!check_output(out, node.span)) return false;
    Frame& loop_frame = frames_[frame_index];
    if (loop_frame.loop.state == LoopState::Break) break;
    loop_frame.loop.state = LoopState::Normal;
    loop_frame.locals.clear();
  }
  ForLoop& done = frames_[frame_index].loop;
  if (done.container.is_string()) done.grapheme = Value();
  pop_frame();
  return true;
}

bool Renderer::render_include(const Node& node, std::string& out) {
  for (std::string_view name : node.include_names) {
    const LinkedTemplate* tpl = registry_.find(name);
    if (!tpl) continue;
    if (include_depth_ >= kMaxIncludeDepth) {
      return fail(node.span, "includes nested deeper than " + std::to_string(kMaxIncludeDepth) + " levels");
    }
    if (!take_step(node.span)) return false;
    push_frame(FrameKind::Include, tpl);
    const Template* saved = source_;
    source_ = tpl->tpl.get();
    const bool saved_own_frames = own_frames_;
    own_frames_ = false;  // lookups go on into the includer's frames
    ++include_depth_;
    bool ok = render_body(tpl->tpl->ast, out);
    --include_depth_;
    own_frames_ = saved_own_frames;
    source_ = saved;
    pop_frame();
    return ok;
  }
  if (node.ignore_missing) return true;
  return fail(node.span, missing_include_message(node));
}

bool Renderer::render_definition(const LinkedTemplate* owner, const Node& block, std::string& out) {
  const Template* saved = source_;
  source_ = owner->tpl.get();
  bool ok = render_body(block.body, out);
  source_ = saved;
  return ok;
}

bool Renderer::render_block(const Node& node, size_t level, std::string& out) {
  const LinkedTemplate* active = current().active;
  const LinkedTemplate* level_tpl = level == 0 ? active : active->parents[level - 1];
  auto it = level_tpl->blocks.find(node.text);
  if (it != level_tpl->blocks.end()) {
    // Quirk kept from Tera: this entry is never popped.
    blocks_.push_back(ActiveBlock{it->first, it->second[0].first, level});
    return render_definition(it->second[0].first, *it->second[0].second, out);
  }
  if (level < active->parents.size()) return render_block(node, level + 1, out);
  return render_body(node.body, out);
}

bool Renderer::render_super(const Node& node, std::string& out) {
  if (blocks_.empty()) return fail(node.span, "Tried to use super() in the top level block");
  ActiveBlock top = blocks_.back();
  const auto& parents = rendered_.parents;
  for (size_t next_level = top.level + 1; next_level <= parents.size(); ++next_level) {
    const LinkedTemplate* parent = parents[next_level - 1];
    auto it = parent->blocks.find(top.name);
    if (it == parent->blocks.end()) continue;
    blocks_.push_back(ActiveBlock{top.name, it->second[0].first, next_level});
    if (!render_definition(it->second[0].first, *it->second[0].second, out)) return false;
    blocks_.pop_back();
    if (next_level >= parents.size() && !blocks_.empty()) blocks_.pop_back();
    return true;
  }
  return fail(node.span, "Tried to use super() in the top level block");
}

}  // namespace sindri::tera::rendering

namespace sindri::tera {

Result<std::string, TemplateError> render_linked(const Registry& registry, const LinkedTemplate& tpl,
                                                 const Value& context, const RenderOptions& options) {
  rendering::Renderer renderer(registry, tpl, context, options);
  std::string out;
  out.reserve(tpl.tpl->source.size() * 2);
  if (!renderer.run(out)) return renderer.take_error();
  return out;
}

}  // namespace sindri::tera
