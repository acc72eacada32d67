#pragma once
// The Tera 1.20 template language: compile once, render many times.
//
//   auto tpl = sindri::tera::compile("deploy.yaml", source);   // syntax only
//   if (!tpl) report(tpl.error());
//   auto out = sindri::tera::render(**tpl, context);           // thread-safe
//
// Templates that include, extend or import others live in an Environment.

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::tera {

struct Location {
  size_t line = 0;    // 1-based; 0 when unknown
  size_t column = 0;  // 1-based, in bytes
};

enum class ErrorKind { Parse, Render };

struct TemplateError {
  ErrorKind kind = ErrorKind::Parse;
  std::string template_name;
  Location location;
  std::string message;     // what is wrong, e.g. "expected `%}` or `-%}`, found `}}`"
  std::string expression;  // render errors: the source text of the failing expression or tag
  // "NAME:LINE:COLUMN: parse error: MESSAGE" (+ "\n  in `EXPRESSION`")
  std::string describe() const;
};

// Orders errors by template name, then line and column.
bool sorts_before(const TemplateError& a, const TemplateError& b);

class Template;  // compiled and immutable; safe to share between threads
using TemplatePtr = std::shared_ptr<const Template>;

// Rendering untrusted templates must end: these bounds turn a runaway loop,
// recursion or string doubling into a render error.
struct RenderOptions {
  bool autoescape = false;  // the output is YAML, so off by default
  // The output, and also the largest string or list a template may build (a
  // list counting 16 bytes an element): builders stop when they pass it.
  size_t max_output_bytes = 256u << 20;
  // The work a render may do: a step for each loop iteration, macro call,
  // include, tag and operator, and for each byte or list element that a
  // filter, function, test or operator reads or writes. Deterministic: the
  // same template and data stop at the same place on any machine.
  uint64_t max_steps = 100'000'000;
  // A wall-clock bound on top, for work the steps undercount; zero for none.
  // Checked every few thousand steps, so it is a backstop, not a timer.
  std::chrono::milliseconds max_duration{0};
  // When set, a render stops with an error once it reads true: read where
  // max_duration reads the clock, every few thousand steps.
  const std::atomic<bool>* cancel = nullptr;
  // The output follows from the template and the context alone: calling a
  // function that reads the clock, a random source or the environment (now,
  // get_random, get_env) is an error. For templates from untrusted authors
  // and output that must be reproducible.
  bool isolated = false;
  // How messages name the template given to render() (its compiled name
  // when empty): a cache may share one compiled template among names.
  std::string_view name = {};
};

struct CheckOptions {
  bool isolated = false;  // as RenderOptions::isolated: now, get_random and get_env are errors
};

// Parses one template. Only the syntax is checked: unknown filters, tests and
// functions are render errors, as in Tera.
Result<TemplatePtr, TemplateError> compile(std::string_view name, std::string_view source);

// Everything compile() checks, plus what can be known without data: unknown
// filters, tests and functions, argument names a builtin does not take, and
// macros called with arguments they do not declare. Empty when all is well.
std::vector<TemplateError> check(std::string_view name, std::string_view source);
// The same for a template already compiled.
std::vector<TemplateError> check(const Template& tpl, const CheckOptions& options = {});

// A tag naming another template: the parent it extends, a template it imports
// macros from, or one it includes. Only an Environment holds other templates;
// render() finds none of them.
struct TemplateReference {
  enum class Kind { Extends, Import, Include };
  Kind kind = Kind::Include;
  std::string name;             // the template named
  bool ignore_missing = false;  // `{% include ... ignore missing %}`: renders nothing when absent
  Location location;            // the tag
};

// Every template `tpl` names, in source order, macro bodies included; an
// include of a list names each template of the list.
std::vector<TemplateReference> referenced_templates(const Template& tpl);

// Renders a template that does not include, extend or import another.
Result<std::string, TemplateError> render(const Template& tpl, const Value& context,
                                          const RenderOptions& options = {});

// A set of named templates that may include, extend and import each other.
class Environment {
 public:
  Environment();
  ~Environment();
  Environment(Environment&&) noexcept;
  Environment& operator=(Environment&&) noexcept;

  // Compiles and adds (or replaces) a template.
  Result<Ok, TemplateError> add(std::string name, std::string_view source);
  // Adds an already compiled template under a name.
  void add(std::string name, TemplatePtr tpl);
  // Links the templates: parents, imports and blocks. Fails with every
  // missing parent, circular extends (once per cycle) and import of an absent
  // template, sorted by template name, then line and column.
  Result<Ok, std::vector<TemplateError>> build();
  // The includes that name only absent templates and do not `ignore
  // missing`, sorted likewise. Not build errors: Tera fails only the render
  // that reaches one, and a template may hold one in a branch never taken.
  std::vector<TemplateError> missing_includes() const;

  bool contains(std::string_view name) const;
  std::vector<std::string> names() const;

  Result<std::string, TemplateError> render(std::string_view name, const Value& context,
                                            const RenderOptions& options = {}) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Compiled templates keyed by the SHA-256 of their source, so that a template
// is parsed once however often it is instantiated. Thread-safe.
class TemplateCache {
 public:
  explicit TemplateCache(size_t capacity = 1024);
  ~TemplateCache();
  Result<TemplatePtr, TemplateError> get_or_compile(std::string_view name, std::string_view source);
  size_t size() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sindri::tera
