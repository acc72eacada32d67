// Frames and variable lookups, and the render's errors and limits.

#include "tera/renderer/renderer.hpp"

namespace sindri::tera::rendering {

namespace {

std::string number_key(const Value& v) {
  std::string s;
  if (v.is_int()) {
    append_int(s, v.get_int());
  } else {
    append_float_json(s, v.get_float());
  }
  return s;
}

}  // namespace

TemplateError Renderer::take_error() {
  std::string expression;
  const std::string& src = error_source_->source;
  if (error_span_.length > 0 && error_span_.offset + error_span_.length <= src.size()) {
    expression = src.substr(error_span_.offset, error_span_.length);
  }
  TemplateError error =
      error_source_->error_at(ErrorKind::Render, error_span_, std::move(error_message_), std::move(expression));
  error.template_name = shown_name(*error_source_);
  return error;
}

bool Renderer::nesting_of(const Value& v, size_t level, size_t& depth, Span span) {
  depth = std::max(depth, level);
  if (level > kMaxNesting) return true;
  if (!charge(1, span)) return false;
  if (v.is_array()) {
    for (const Value& item : v.get_array()) {
      if ((item.is_array() || item.is_object()) && !nesting_of(item, level + 1, depth, span)) return false;
    }
  } else {
    for (const Member& member : v.get_object()) {
      if ((member.value.is_array() || member.value.is_object()) && !nesting_of(member.value, level + 1, depth, span)) {
        return false;
      }
    }
  }
  return true;
}

bool Renderer::limit_hit(Span span) {
  switch (budget_.exceeded()) {
    case Budget::Limit::Steps:
      return fail(span, "rendering took more than " + std::to_string(budget_.max_steps()) +
                            " steps (a step for each loop iteration, macro call, include, tag and operator, and for "
                            "each byte or list element a filter, function, test or operator reads or writes): is a "
                            "loop or a recursion unbounded? If not, do less work per render, e.g. process a long "
                            "string once rather than in a loop");
    case Budget::Limit::ValueSize:
      return fail(span, "a value being built passed the limit of " + std::to_string(budget_.max_value_bytes()) +
                            " bytes for a string or list a template builds (a list counts 16 bytes an element): "
                            "build it from less data");
    case Budget::Limit::Duration:
      return fail(span, "rendering took longer than " + std::to_string(budget_.max_duration().count()) +
                            " ms, the limit for one render: is a loop or a recursion unbounded? If not, do less "
                            "work per render");
    case Budget::Limit::Cancelled:
      return fail(span, "rendering was cancelled: the process rendering it is stopping");
    case Budget::Limit::None:
      break;
  }
  return fail(span, "the render's budget is spent");
}

bool Renderer::output_too_large(Span span) {
  return fail(span, "the output is larger than the limit of " + std::to_string(options_.max_output_bytes) + " bytes");
}

bool Renderer::segment_keys(const Expr& path, Keys& keys) {
  size_t dynamic = 0;
  for (const PathSegment& seg : path.segments) dynamic += seg.dynamic ? 1 : 0;
  if (dynamic) keys.storage.reserve(dynamic);
  for (const PathSegment& seg : path.segments) {
    if (!seg.dynamic) {
      keys.push(seg.key.text());
      continue;
    }
    Value index;
    bool found = false;
    if (!lookup(*seg.dynamic, index, found)) return false;
    if (!found) {
      return fail(path.span, "Variable " + std::string(path.dotted) + " can not be evaluated because: Variable `" +
                                 std::string(seg.dynamic->dotted) + "` not found in context while rendering '" +
                                 shown_name(*current().active->tpl) + "'");
    }
    if (index.is_string()) {
      if (!charge(index.get_string().size(), seg.dynamic->span)) return false;
      keys.storage.emplace_back(index.get_string());
    } else if (index.is_number()) {
      keys.storage.push_back(number_key(index));
    } else {
      return fail(path.span, "Only variables evaluating to String or Number can be used as index (`" +
                                 std::string(seg.dynamic->dotted) + "` of `" + std::string(path.dotted) + "`)");
    }
    keys.push(keys.storage.back());
  }
  return true;
}

bool Renderer::lookup_dynamic(const Expr& path, const Value*& v) {
  Keys keys;
  if (!segment_keys(path, keys)) return false;
  v = lookup_keys(path, keys);
  return true;
}

Value Renderer::context_dump() {
  Value names(Object{});
  for (size_t i = depth_; i-- > 0;) {
    const Frame& f = frames_[i];
    for (const auto& [name, value] : f.locals) names.set(name, value);
    if (f.kind == FrameKind::For) {
      names.set(f.loop.value_var, f.loop.current_value());
      if (!f.loop.key_var.empty()) names.set(f.loop.key_var, f.loop.current_key());
    }
    if (f.kind == FrameKind::Macro) return names;
  }
  Value dump = context_.is_object() ? context_ : Value(Object{});
  for (const Member& m : names.get_object()) dump.set(m.key.get_string(), m.value);
  return dump;
}

Value Renderer::context_text(Span span) {
  std::string text;
  if (!append_json_pretty_within(text, context_dump(), budget_.max_value_bytes())) {
    budget_.refuse_value();
    limit_hit(span);
    return Value();
  }
  if (!charge(text.size(), span)) return Value();
  return Value(text);
}

bool Renderer::not_found(const Expr& path) {
  const std::string name = shown_name(*current().active->tpl);
  for (const PathSegment& seg : path.segments) {
    // Tera reads a negative index in brackets as the name of a variable.
    if (!seg.after_dot && !seg.dynamic && seg.key.text().starts_with('-')) {
      return fail(path.span, "Variable " + std::string(path.dotted) + " can not be evaluated because: Variable `" +
                                 std::string(seg.key.text()) + "` not found in context while rendering '" + name + "'");
    }
  }
  if (path.segments.empty() || path.dotted.find('[') == std::string::npos) {
    return fail(path.span, "Variable `" + std::string(path.dotted) + "` not found in context while rendering '" + name + "'");
  }
  return fail(path.span, "Variable `" + std::string(path.dotted) + "` not found in context while rendering '" + name +
                             "'. Maybe the index is out of bounds?");
}

}  // namespace sindri::tera::rendering
