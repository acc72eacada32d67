#include <algorithm>

#include "tera/linked.hpp"

namespace sindri::tera {

Result<TemplatePtr, TemplateError> compile(std::string_view name, std::string_view source) {
  auto tpl = std::make_shared<Template>();
  tpl->name = std::string(name);
  tpl->source = std::string(source);
  Result<Ok, TemplateError> parsed = parse_template(*tpl);
  if (!parsed) return std::move(parsed).error();
  return TemplatePtr(std::move(tpl));
}

Result<std::string, TemplateError> render(const Template& tpl, const Value& context, const RenderOptions& options) {
  // A lone template needs a linked view of itself; it shares the compiled tree.
  static const Registry empty;
  LinkedTemplate linked;
  linked.tpl = TemplatePtr(TemplatePtr(), &tpl);
  link_alone(linked);
  return render_linked(empty, linked, context, options);
}

struct Environment::Impl {
  Registry registry;
  bool built = false;
};

Environment::Environment() : impl_(std::make_unique<Impl>()) {}
Environment::~Environment() = default;
Environment::Environment(Environment&&) noexcept = default;
Environment& Environment::operator=(Environment&&) noexcept = default;

Result<Ok, TemplateError> Environment::add(std::string name, std::string_view source) {
  Result<TemplatePtr, TemplateError> compiled = compile(name, source);
  if (!compiled) return std::move(compiled).error();
  add(std::move(name), std::move(compiled).value());
  return Ok{};
}

void Environment::add(std::string name, TemplatePtr tpl) {
  LinkedTemplate& linked = impl_->registry.templates[std::move(name)];
  linked.tpl = std::move(tpl);
  impl_->built = false;
}

Result<Ok, std::vector<TemplateError>> Environment::build() {
  std::vector<TemplateError> errors = link(impl_->registry);
  impl_->built = errors.empty();
  if (!errors.empty()) return errors;
  return Ok{};
}

std::vector<TemplateError> Environment::missing_includes() const { return tera::missing_includes(impl_->registry); }

bool Environment::contains(std::string_view name) const { return impl_->registry.find(name) != nullptr; }

std::vector<std::string> Environment::names() const {
  std::vector<std::string> names;
  for (const auto& entry : impl_->registry.templates) names.push_back(entry.first);
  std::sort(names.begin(), names.end());
  return names;
}

Result<std::string, TemplateError> Environment::render(std::string_view name, const Value& context,
                                                       const RenderOptions& options) const {
  const LinkedTemplate* tpl = impl_->registry.find(name);
  if (!tpl) {
    TemplateError e;
    e.kind = ErrorKind::Render;
    e.template_name = std::string(name);
    e.message = "Template '" + std::string(name) + "' not found";
    return e;
  }
  if (!impl_->built) {
    TemplateError e;
    e.kind = ErrorKind::Render;
    e.template_name = std::string(name);
    e.message = "the environment changed since it was last built: call build() first";
    return e;
  }
  return render_linked(impl_->registry, *tpl, context, options);
}

std::string TemplateError::describe() const {
  std::string out = template_name;
  if (location.line > 0) {
    out += ':';
    out += std::to_string(location.line);
    out += ':';
    out += std::to_string(location.column);
  }
  out += kind == ErrorKind::Parse ? ": parse error: " : ": render error: ";
  out += message;
  if (!expression.empty()) out += "\n  in `" + expression + "`";
  return out;
}

}  // namespace sindri::tera
