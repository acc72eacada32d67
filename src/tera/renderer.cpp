// Walks a linked template's syntax tree and writes its output. The rules for
// scopes, truthiness, arithmetic and errors are Tera's, quirks included
// (they are marked where they surprise).

#include <cmath>
#include <limits>
#include <map>
#include <span>

#include "tera/builtins/unicode.hpp"
#include "tera/linked.hpp"
#include "value/json.hpp"
#include "value/number_format.hpp"

namespace sindri::tera {

namespace {

constexpr size_t kMaxMacroDepth = 200;
constexpr size_t kMaxIncludeDepth = 100;
// Frames for the origin and a few nested loops, allocated once per render.
constexpr size_t kUsualFrameDepth = 8;

enum class LoopState : uint8_t { Normal, Break, Continue };

struct ForLoop {
  std::string_view key_var;
  std::string_view value_var;
  Value container;
  std::vector<size_t> grapheme_starts;  // strings only
  // Strings only: the current grapheme, made once per iteration however
  // often it is read (a grapheme may be megabytes of combining marks).
  Value grapheme;
  size_t index = 0;
  size_t length = 0;
  LoopState state = LoopState::Normal;

  void move_to(size_t i) {
    index = i;
    if (!container.is_string()) return;
    std::string_view s = container.get_string();
    size_t begin = grapheme_starts[i];
    size_t end = i + 1 < grapheme_starts.size() ? grapheme_starts[i + 1] : s.size();
    grapheme = Value(s.substr(begin, end - begin));
  }

  // The current element; strings yield their current grapheme.
  const Value& current_value() const {
    if (container.is_array()) return container.get_array()[index];
    if (container.is_object()) return container.get_object()[index].value;
    return grapheme;
  }
  const Value& current_key() const { return container.get_object()[index].key; }
};

enum class FrameKind : uint8_t { Origin, Macro, For, Include };

struct Frame {
  FrameKind kind = FrameKind::Origin;
  const LinkedTemplate* active = nullptr;  // the template whose code runs
  std::vector<std::pair<std::string_view, Value>> locals;
  ForLoop loop;

  const Value* find_local(std::string_view name) const {
    for (auto it = locals.rbegin(); it != locals.rend(); ++it) {
      if (it->first == name) return &it->second;
    }
    return nullptr;
  }
  void assign(std::string_view name, Value v) {
    for (auto& local : locals) {
      if (local.first == name) {
        local.second = std::move(v);
        return;
      }
    }
    locals.emplace_back(name, std::move(v));
  }
};

// The definition of a block being rendered, for super().
struct ActiveBlock {
  std::string_view name;
  const LinkedTemplate* tpl;
  size_t level;
};

std::string_view text_of(std::string_view key) { return key; }
std::string_view text_of(const KeyProbe& key) { return key.text(); }

bool parse_index(std::string_view key, size_t& index) {
  if (key.empty() || key.size() > 19) return false;
  if (key.size() > 1 && key[0] == '0') return false;
  index = 0;
  for (char c : key) {
    if (c < '0' || c > '9') return false;
    index = index * 10 + static_cast<size_t>(c - '0');
  }
  return true;
}

template <class Key>
const Value* step(const Value* v, const Key& key) {
  if (v->is_object()) return v->find(key);
  if (v->is_array()) {
    size_t index;
    if (!parse_index(text_of(key), index)) return nullptr;
    return v->at(index);
  }
  return nullptr;
}

std::string number_key(const Value& v) {
  std::string s;
  if (v.is_int()) {
    append_int(s, v.get_int());
  } else {
    append_float_json(s, v.get_float());
  }
  return s;
}

class Renderer {
 public:
  Renderer(const Registry& registry, const LinkedTemplate& tpl, const Value& context, const RenderOptions& options)
      : registry_(registry), rendered_(tpl), context_(context), options_(options), budget_(options) {
    root_ = tpl.parents.empty() ? &tpl : tpl.parents.back();
    frames_.reserve(kUsualFrameDepth);
  }

  bool run(std::string& out) {
    Frame& origin = push_frame(FrameKind::Origin, &rendered_);
    (void)origin;
    source_ = root_->tpl.get();
    const bool ok = render_body(root_->tpl->ast, out);
    // A limit hit where Tera ignores failures (an `if` on a failing filter)
    // still ends the render; the error was recorded where it was hit.
    return ok && !spent();
  }

  TemplateError take_error() {
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

 private:
  // How messages name `tpl`: as the caller asked, for the template it
  // rendered (a cache may share one compiled template among names).
  std::string shown_name(const Template& tpl) const {
    if (!options_.name.empty() && &tpl == rendered_.tpl.get()) return std::string(options_.name);
    return tpl.name;
  }

  // ---- errors ------------------------------------------------------------

  // The error is turned into text only when it is reported: speculative
  // evaluations (an undefined variable in an `if`) fail and are undone often.
  bool fail(Span span, std::string message) {
    if (!failed_) {
      failed_ = true;
      error_source_ = source_;
      error_span_ = span;
      error_message_ = std::move(message);
    }
    return false;
  }

  // ---- budget ------------------------------------------------------------

  [[gnu::always_inline]] bool charge(uint64_t steps, Span span) {
    if (budget_.charge(steps)) [[likely]] return true;
    return limit_hit(span);
  }
  bool take_step(Span span) { return charge(1, span); }
  bool spent() const { return budget_.exceeded() != Budget::Limit::None; }

  // Strings, lists and objects a template builds are bounded like its output.
  [[gnu::always_inline]] bool check_size(const Value& v, Span span) {
    const size_t bytes = v.is_string()   ? v.get_string().size()
                         : v.is_array()  ? v.size() * sizeof(Value)
                         : v.is_object() ? v.size() * sizeof(Member)
                                         : 0;
    if (budget_.fits(bytes)) [[likely]] return true;
    return limit_hit(span);
  }

  // A list can be made to hold the value it replaces, in a loop: a literal
  // (`{% set_global a = [a] %}`), `concat(with=a)`, `group_by` (which puts
  // its items in an object of lists). A value nested hundreds of thousands
  // deep crashed the process, whose every walk over a value (destroying,
  // printing, comparing) recurses. What literals, filters and functions
  // build nests at most kMaxNesting deep, as JSON input does. The depth of
  // the value checked last is kept, so that such a loop costs a step per
  // pass; any other value is walked, within that depth, a step for each
  // list or object met.
  static constexpr size_t kMaxNesting = 512;

  bool check_nesting(const Value& built, Span span) {
    if (!built.is_array() && !built.is_object()) return true;
    size_t deepest = 0;
    const auto child = [&](const Value& item) {
      if (!item.is_array() && !item.is_object()) return true;
      size_t depth = 0;
      if (same_container(item, last_checked_)) {
        depth = last_checked_depth_;
      } else if (!nesting_of(item, 1, depth, span)) {
        return false;
      }
      deepest = std::max(deepest, depth);
      return true;
    };
    if (built.is_array()) {
      for (const Value& item : built.get_array()) {
        if (!child(item)) return false;
      }
    } else {
      for (const Member& member : built.get_object()) {
        if (!child(member.value)) return false;
      }
    }
    if (deepest + 1 > kMaxNesting) {
      return fail(span, "a list or object nested more than " + std::to_string(kMaxNesting) +
                            " deep: is a value put inside itself in a loop?");
    }
    last_checked_ = built;
    last_checked_depth_ = deepest + 1;
    return true;
  }

  static bool same_container(const Value& a, const Value& b) {
    if (a.is_array() && b.is_array()) return &a.get_array() == &b.get_array();
    if (a.is_object() && b.is_object()) return &a.get_object() == &b.get_object();
    return false;
  }

  // The nesting of `v` (at `level`) into `depth`, walking no deeper than
  // kMaxNesting; false once the steps are spent.
  bool nesting_of(const Value& v, size_t level, size_t& depth, Span span) {
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

  bool check_output(const std::string& out, Span span) {
    if (out.size() <= options_.max_output_bytes) [[likely]] return true;
    return output_too_large(span);
  }

  // The failures are kept out of line so that the checks above stay cheap.
  [[gnu::cold, gnu::noinline]] bool limit_hit(Span span) {
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
      case Budget::Limit::None:
        break;
    }
    return fail(span, "the render's budget is spent");
  }
  [[gnu::cold, gnu::noinline]] bool output_too_large(Span span) {
    return fail(span, "the output is larger than the limit of " + std::to_string(options_.max_output_bytes) + " bytes");
  }

  // ---- frames ------------------------------------------------------------

  Frame& push_frame(FrameKind kind, const LinkedTemplate* active) {
    if (depth_ == frames_.size()) frames_.emplace_back();
    Frame& f = frames_[depth_++];
    f.kind = kind;
    f.active = active;
    f.locals.clear();
    return f;
  }
  void pop_frame() {
    Frame& f = frames_[--depth_];
    f.locals.clear();
    f.loop.container = Value();
  }
  Frame& current() { return frames_[depth_ - 1]; }

  // `set` writes to the current frame; `set_global` skips for-loop frames.
  Frame& global_frame() {
    for (size_t i = depth_; i-- > 0;) {
      if (frames_[i].kind != FrameKind::For) return frames_[i];
    }
    return frames_[0];
  }

  // ---- variable lookup ---------------------------------------------------

  // The text keys of a path's segments; dynamic ones are evaluated. Paths
  // are short, so the keys live inline and lookups do not allocate.
  struct Keys {
    static constexpr size_t kInline = 12;
    std::string_view inline_keys[kInline];
    std::vector<std::string_view> spilled;
    std::vector<std::string> storage;  // text of dynamic keys
    size_t count = 0;

    void push(std::string_view k) {
      if (count < kInline) {
        inline_keys[count] = k;
      } else {
        if (spilled.empty()) spilled.assign(inline_keys, inline_keys + kInline);
        spilled.push_back(k);
      }
      ++count;
    }
    std::string_view operator[](size_t i) const { return count <= kInline ? inline_keys[i] : spilled[i]; }
  };

  bool segment_keys(const Expr& path, Keys& keys) {
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

  // Looks a path up through the frames, then the context. `found` is false
  // for an undefined variable; the return value is false only on errors.
  bool lookup(const Expr& path, Value& out, bool& found) {
    const Value* v = nullptr;
    if (!lookup_ref(path, v)) return false;
    found = v != nullptr;
    if (v) out = *v;
    return true;
  }

  // As lookup, without copying: `v` is null for an undefined variable and
  // otherwise valid until the next lookup.
  bool lookup_ref(const Expr& path, const Value*& v) {
    // Most paths have only static keys: walk them without building anything.
    if (path.dynamic_segments) return lookup_dynamic(path, v);
    v = lookup_keys(path, StaticKeys{path.segments});
    return true;
  }

  // Kept apart so that the common case above stays small.
  [[gnu::noinline]] bool lookup_dynamic(const Expr& path, const Value*& v) {
    Keys keys;
    if (!segment_keys(path, keys)) return false;
    v = lookup_keys(path, keys);
    return true;
  }

  struct StaticKeys {
    const AstList<PathSegment>& segments;
    size_t size() const { return segments.size(); }
    const KeyProbe& operator[](size_t i) const { return segments[i].key; }
  };

  template <class K>
  static const Value* walk_keys(const Value* v, const K& keys) {
    for (size_t i = 0; i < key_count(keys); ++i) {
      if (!v) return nullptr;
      v = step(v, keys[i]);
    }
    return v;
  }
  static size_t key_count(const Keys& k) { return k.count; }
  static size_t key_count(const StaticKeys& k) { return k.size(); }

  // Tera knows `loop.index` only as written with a dot: `loop["index"]` and
  // `loop[name]` are not the loop's.
  static bool single_dotted_key(const StaticKeys& k, std::string_view& key) {
    if (k.size() != 1 || !k.segments[0].after_dot) return false;
    key = k.segments[0].key.text();
    return true;
  }
  static bool single_dotted_key(const Keys&, std::string_view&) { return false; }

  // Inlined: every variable of a template comes through here. With the
  // frames this template's own, the read goes where resolve_scopes found it
  // may be bound; a loop variable that does not have the keys asked for is
  // looked for further out, as the walk over every frame does. Values made
  // up on the spot (loop.index, a grapheme) are returned from `scratch_`.
  template <class K>
  [[gnu::always_inline]] const Value* lookup_keys(const Expr& path, const K& keys) {
    size_t top = depth_;
    // The walk over every frame is always right; the bounds check keeps it
    // the answer should the marks ever disagree with the frames.
    if (own_frames_ && path.frames_to_skip < depth_) {
      if (path.binding == VariableBinding::Context) return walk_keys(context_.find(path.root_key), keys);
      top -= path.frames_to_skip;
      if (path.binding != VariableBinding::Frames) {
        const ForLoop& loop = frames_[top - 1].loop;
        const Value* v = nullptr;
        switch (path.binding) {
          case VariableBinding::LoopValue:
            v = loop_value(loop, keys);
            break;
          case VariableBinding::LoopKey:
            v = loop_key(loop, keys);
            break;
          default:
            v = loop_magic(loop, keys);
            break;
        }
        if (v) return v;
        --top;
      }
    }
    const std::string_view root = path.root;
    // Tera makes `__tera_context` up before asking any frame, and only as a
    // whole: `__tera_context.x` is an ordinary variable.
    if (key_count(keys) == 0 && root == "__tera_context") {
      scratch_ = context_text(path.span);
      return &scratch_;
    }
    for (size_t i = top; i-- > 0;) {
      const Frame& f = frames_[i];
      budget_.add(1 + f.locals.size());  // a template may `set` thousands of names
      // Tera asks a frame's own names first and, when they do not have the
      // keys asked for, the same frame's loop.
      if (const Value* local = f.find_local(root)) {
        if (const Value* v = walk_keys(local, keys)) return v;
      }
      if (f.kind == FrameKind::For) {
        if (const Value* v = loop_variable(f.loop, root, keys)) return v;
      }
      if (f.kind == FrameKind::Macro || f.kind == FrameKind::Origin) break;
    }
    return walk_keys(context_.find(path.root_key), keys);
  }

  // In Tera's order: the key variable standing alone, then `loop` (which
  // ends the search in this frame), then the value variable.
  template <class K>
  const Value* loop_variable(const ForLoop& loop, std::string_view root, const K& keys) {
    if (!loop.key_var.empty() && root == loop.key_var) {
      if (const Value* key = loop_key(loop, keys)) return key;
    }
    if (root == "loop") return loop_magic(loop, keys);
    if (root == loop.value_var) return loop_value(loop, keys);
    return nullptr;
  }

  template <class K>
  const Value* loop_value(const ForLoop& loop, const K& keys) {
    return walk_keys(&loop.current_value(), keys);
  }

  template <class K>
  static const Value* loop_key(const ForLoop& loop, const K& keys) {
    if (key_count(keys) != 0) return nullptr;
    return &loop.current_key();
  }

  template <class K>
  const Value* loop_magic(const ForLoop& loop, const K& keys) {
    std::string_view k;
    if (!single_dotted_key(keys, k)) return nullptr;
    if (k == "index") scratch_ = Value(static_cast<long>(loop.index + 1));
    else if (k == "index0") scratch_ = Value(static_cast<long>(loop.index));
    else if (k == "first") scratch_ = Value(loop.index == 0);
    else if (k == "last") scratch_ = Value(loop.index + 1 == loop.length);
    else return nullptr;
    return &scratch_;
  }

  // `__tera_context` as Tera builds it: from the innermost frame outwards,
  // each frame's names replacing the same names from frames inside it and a
  // loop's variables replacing its own `set`s; inside a macro only the
  // macro's frames, elsewhere on top of the context.
  Value context_dump() {
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

  // The text of `__tera_context`, bounded as any value a template builds:
  // locals may share a long list many times. Past the limit it is empty,
  // the limit is recorded and the render ends there.
  Value context_text(Span span) {
    std::string text;
    if (!append_json_pretty_within(text, context_dump(), budget_.max_value_bytes())) {
      budget_.refuse_value();
      limit_hit(span);
      return Value();
    }
    if (!charge(text.size(), span)) return Value();
    return Value(text);
  }

  bool not_found(const Expr& path) {
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

  // ---- expressions -------------------------------------------------------

  // The arguments of one call, pushed on `arg_stack_` (shared by all calls
  // so that none allocates) and popped when the call is done.
  class ArgFrame {
   public:
    explicit ArgFrame(std::vector<Arg>& stack) : stack_(stack), base_(stack.size()) {}
    ~ArgFrame() { stack_.resize(base_); }
    ArgFrame(const ArgFrame&) = delete;
    ArgFrame& operator=(const ArgFrame&) = delete;
    Args args() const { return Args(std::span<const Arg>(stack_).subspan(base_)); }

   private:
    std::vector<Arg>& stack_;
    size_t base_;
  };

  bool eval_args(const AstList<NamedArg>& args) {
    for (const NamedArg& a : args) {
      Value v;
      if (!eval(*a.value, v)) return false;
      arg_stack_.push_back(Arg{a.name, std::move(v)});
    }
    return true;
  }

  bool apply_filter(const FilterCall& f, Value& value) {
    if (!f.def) return fail(f.span, "Filter `" + std::string(f.name) + "` not found");
    if (!take_step(f.span)) return false;
    ArgFrame frame(arg_stack_);
    if (!eval_args(f.args)) return false;
    Result<Value> r = f.def->fn(value, frame.args(), budget_);
    if (!r) {
      if (spent()) return limit_hit(f.span);
      return fail(f.span, "Filter call '" + std::string(f.name) + "' failed: " + r.error().message);
    }
    value = std::move(r).value();
    return check_size(value, f.span) && check_nesting(value, f.span);
  }

  // The first `count` filters of `e`.
  bool apply_filters(const Expr& e, size_t count, Value& value) {
    for (size_t i = 0; i < count; ++i) {
      const FilterCall& f = e.filters[i];
      if (f.name == "safe" || f.name == "default") continue;
      if (!apply_filter(f, value)) return false;
    }
    return true;
  }

  bool default_value(const Expr& e, Value& out) {
    for (const NamedArg& a : e.filters[0].args) {
      if (a.name == "value") return eval(*a.value, out);
    }
    return fail(e.filters[0].span, "The `default` filter requires a `value` argument.");
  }

  bool has_default(const Expr& e) const { return !e.filters.empty() && e.filters[0].name == "default"; }

  bool call_function(const Expr& e, Value& out) {
    if (!e.function_def) return fail(e.span, "Function '" + std::string(e.name) + "' not found");
    if (options_.isolated && !e.function_def->reads.empty()) return fail(e.span, isolation_message(*e.function_def));
    if (!take_step(e.span)) return false;
    ArgFrame frame(arg_stack_);
    if (!eval_args(e.args)) return false;
    Result<Value> r = e.function_def->fn(frame.args(), budget_);
    if (!r) {
      if (spent()) return limit_hit(e.span);
      return fail(e.span, "Function call '" + std::string(e.name) + "' failed: " + r.error().message);
    }
    out = std::move(r).value();
    return check_size(out, e.span) && check_nesting(out, e.span);
  }

  // Each part is checked against the size limit before it is appended, and
  // the text is charged as written.
  bool eval_concat(const Expr& e, Value& out) {
    if (!charge(e.items.size(), e.span)) return false;
    std::string s;
    for (const ExprPtr& part : e.items) {
      Value v;
      switch (part->kind) {
        case Expr::Kind::Literal:
          if (part->literal->is_string()) {
            if (!budget_.fits(s.size() + part->literal->get_string().size())) return limit_hit(e.span);
            s += part->literal->get_string();
          } else if (part->literal->is_int()) {
            append_int(s, part->literal->get_int());
          } else {
            append_float_plain(s, part->literal->get_float());
          }
          continue;
        case Expr::Kind::Path: {
          bool found = false;
          if (!lookup(*part, v, found)) return false;
          if (!found) return not_found(*part);
          break;
        }
        default:
          if (!call_function(*part, v)) return false;
          break;
      }
      if (v.is_string()) {
        if (!budget_.fits(s.size() + v.get_string().size())) return limit_hit(e.span);
        s += v.get_string();
      } else if (v.is_int()) {
        append_int(s, v.get_int());
      } else if (v.is_float()) {
        append_float_json(s, v.get_float());
      } else {
        return fail(part->span, "Tried to concat a value that is not a string or a number from " +
                                    std::string(part->kind == Expr::Kind::Path ? "ident " : "function call ") +
                                    std::string(part->kind == Expr::Kind::Path ? part->dotted : part->name));
      }
    }
    if (!charge(s.size(), e.span)) return false;
    out = Value(s);
    return check_size(out, e.span);
  }

  // Tera's eval_expression: a value, with filters and `not` applied.
  bool eval(const Expr& e, Value& out) {
    bool settled = false;
    if (!eval_unfiltered(e, out, settled)) return false;
    if (settled) return true;
    if (!apply_filters(e, e.filters.size(), out)) return false;
    if (e.negated) out = Value(!is_truthy(out));
    return true;
  }

  // An expression's value before its filters and `not`, unless `settled`
  // comes back true: `not undefined` is true as it stands, with no filters.
  bool eval_unfiltered(const Expr& e, Value& out, bool& settled) {
    switch (e.kind) {
      case Expr::Kind::Literal:
        out = *e.literal;
        break;
      case Expr::Kind::Path: {
        bool found = false;
        const Snapshot before = snapshot();
        if (!lookup(e, out, found)) {
          // As in Tera, `default` and `not` also cover an index that fails.
          if (!has_default(e) && !e.negated) return false;
          restore(before);
        }
        if (!found || out.is_null()) {
          if (has_default(e)) {
            if (!default_value(e, out)) return false;
          } else if (!found) {
            // `not undefined` is true rather than an error.
            if (e.negated) {
              out = Value(true);
              settled = true;
              return true;
            }
            return not_found(e);
          }
        }
        break;
      }
      case Expr::Kind::Array: {
        // The items are shared, not copied: `[a, a]` costs two elements
        // however long `a` is (its text is bounded where it is built).
        if (!charge(e.items.size(), e.span)) return false;
        Array items;
        items.reserve(e.items.size());
        for (const ExprPtr& item : e.items) {
          Value v;
          if (!eval(*item, v)) return false;
          items.push_back(std::move(v));
        }
        out = Value(std::move(items));
        if (!check_size(out, e.span) || !check_nesting(out, e.span)) return false;
        break;
      }
      case Expr::Kind::Concat:
        if (!eval_concat(e, out)) return false;
        break;
      case Expr::Kind::In: {
        bool b;
        if (!eval_in(e, b)) return false;
        out = Value(b);
        break;
      }
      case Expr::Kind::Test: {
        bool b;
        if (!eval_test(e, b)) return false;
        out = Value(b);
        break;
      }
      case Expr::Kind::Call:
        if (!call_function(e, out)) return false;
        break;
      case Expr::Kind::MacroCall: {
        std::string text;
        if (!call_macro(e, text)) return false;
        out = Value(text);
        break;
      }
      case Expr::Kind::Logic:
      case Expr::Kind::Compare: {
        // Quirk: eval_bool applies `not`, and it is applied once more below.
        bool b;
        if (!eval_bool(e, b)) return false;
        out = Value(b);
        break;
      }
      case Expr::Kind::Math: {
        Value n;
        bool nan = false;
        if (!eval_math(e, n, nan)) return false;
        out = nan ? Value("NaN") : std::move(n);
        break;
      }
    }
    return true;
  }

  // Tera's eval_as_bool.
  bool eval_bool(const Expr& e, bool& out) {
    bool res = false;
    switch (e.kind) {
      case Expr::Kind::Logic: {
        if (!take_step(e.span)) return false;
        bool l;
        if (!eval_bool(*e.lhs, l)) return false;
        if (e.logic_op == LogicOp::Or) {
          res = l;
          if (!l && !eval_bool(*e.rhs, res)) return false;
        } else {
          res = l;
          if (l && !eval_bool(*e.rhs, res)) return false;
        }
        break;
      }
      case Expr::Kind::Compare: {
        bool mixed_kinds = false;
        if (!eval_compare(e, res, mixed_kinds)) return false;
        // Tera answers false to == and != between a number and anything
        // else before it looks at `not`: `not n != "x"` is false as a
        // condition (and true printed, where `not` is applied once more).
        if (mixed_kinds) {
          out = false;
          return true;
        }
        break;
      }
      case Expr::Kind::Path: {
        // An undefined or failing variable is simply false here.
        Renderer::Snapshot snap = snapshot();
        if (e.filters.empty() && !e.negated) {
          // Read in place, without building the error an undefined variable would have.
          const Value* found = nullptr;
          if (lookup_ref(e, found)) {
            out = found && is_truthy(*found);
          } else {
            restore(snap);
            out = false;
          }
          return true;
        }
        Value v;
        if (eval(e, v)) {
          out = is_truthy(v);
        } else {
          restore(snap);
          out = false;
        }
        return true;
      }
      case Expr::Kind::Math:
      case Expr::Kind::Literal:
        if (e.kind == Expr::Kind::Literal && e.literal->is_bool()) {
          res = e.literal->get_bool();
        } else if (e.kind == Expr::Kind::Literal && e.literal->is_string()) {
          res = !e.literal->get_string().empty();
        } else {
          Value n;
          bool nan = false;
          if (!eval_number_plain(e, n, nan)) return false;
          res = !nan && n.as_double() != 0.0;
        }
        break;
      case Expr::Kind::In:
        if (!eval_in(e, res)) return false;
        break;
      case Expr::Kind::Test:
        if (!eval_test(e, res)) return false;
        break;
      case Expr::Kind::Call: {
        Value v;
        if (!call_function(e, v)) return false;
        if (!v.is_bool()) {
          return fail(e.span, "Function `" + std::string(e.name) + "` was used in a logic operation but is not returning a bool");
        }
        res = v.get_bool();
        break;
      }
      case Expr::Kind::MacroCall: {
        std::string text;
        if (!call_macro(e, text)) return false;
        res = !text.empty();
        break;
      }
      case Expr::Kind::Concat:
      case Expr::Kind::Array: {
        Value v;
        if (!eval(e, v)) return false;
        res = is_truthy(v);
        break;
      }
    }
    out = e.negated ? !res : res;
    return true;
  }

  struct Snapshot {
    bool failed;
  };
  Snapshot snapshot() const { return {failed_}; }
  // A limit that was hit is never undone: the render ends with it.
  void restore(const Snapshot& s) {
    if (!spent()) failed_ = s.failed;
  }

  // `mixed_kinds` comes back true for == or != between a number and
  // anything else, which Tera answers false whatever the operator.
  bool eval_compare(const Expr& e, bool& res, bool& mixed_kinds) {
    if (!take_step(e.span)) return false;
    if (e.compare_op == CompareOp::Eq || e.compare_op == CompareOp::NotEq) {
      Value l, r;
      if (!eval(*e.lhs, l) || !eval(*e.rhs, r)) return false;
      bool equal;
      if (l.is_number() != r.is_number()) {
        res = false;
        mixed_kinds = true;
        return true;
      }
      if (l.is_number()) {
        equal = l.as_double() == r.as_double();
      } else {
        Result<bool> same = equal_values(l, r, budget_);
        if (!same) return limit_hit(e.span);
        equal = *same;
      }
      res = (e.compare_op == CompareOp::Eq) == equal;
      return true;
    }
    Value l, r;
    bool lnan = false, rnan = false;
    if (!eval_number(*e.lhs, l, lnan) || !eval_number(*e.rhs, r, rnan)) return false;
    if (lnan || rnan) return fail(e.span, "Comparison to NaN");
    double a = l.as_double(), b = r.as_double();
    switch (e.compare_op) {
      case CompareOp::Lt: res = a < b; break;
      case CompareOp::Lte: res = a <= b; break;
      case CompareOp::Gt: res = a > b; break;
      case CompareOp::Gte: res = a >= b; break;
      default: break;
    }
    return true;
  }

  // A math operand: with filters it is evaluated as a value and must be a
  // number; without, Tera's eval_as_number rules apply.
  bool eval_number(const Expr& e, Value& out, bool& nan) {
    if (!e.filters.empty()) {
      if (!eval(e, out)) return false;
      if (!out.is_number()) return fail(e.span, "Tried to do math with an expression not resulting in a number");
      nan = false;
      return true;
    }
    return eval_number_plain(e, out, nan);
  }

  bool eval_number_plain(const Expr& e, Value& out, bool& nan) {
    nan = false;
    switch (e.kind) {
      case Expr::Kind::Path: {
        bool found = false;
        if (!lookup(e, out, found)) return false;
        if (!found) return not_found(e);
        if (!out.is_number()) {
          return fail(e.span, "Variable `" + std::string(e.dotted) + "` was used in a math operation but is not a number");
        }
        return true;
      }
      case Expr::Kind::Literal:
        if (e.literal->is_string()) {
          return fail(e.span, "Tried to do math with a string: `" + std::string(e.literal->get_string()) + "`");
        }
        if (e.literal->is_bool()) {
          return fail(e.span, std::string("Tried to do math with a boolean: `") +
                                  (e.literal->get_bool() ? "true" : "false") + "`");
        }
        out = *e.literal;
        return true;
      case Expr::Kind::Math:
        return eval_math(e, out, nan);
      case Expr::Kind::Call:
        if (!call_function(e, out)) return false;
        if (!out.is_number()) {
          return fail(e.span, "Function `" + std::string(e.name) + "` was used in a math operation but is not returning a number");
        }
        return true;
      case Expr::Kind::Concat:
        return fail(e.span, "Tried to do math with a string concatenation");
      case Expr::Kind::Test:
        return fail(e.span, "Tried to do math with a test: " + std::string(e.name));
      default:
        return fail(e.span, "Tried to do math with something that is not a number");
    }
  }

  bool eval_math(const Expr& e, Value& out, bool& nan) {
    if (!take_step(e.span)) return false;
    Value l, r;
    bool lnan = false, rnan = false;
    if (!eval_number(*e.lhs, l, lnan) || !eval_number(*e.rhs, r, rnan)) return false;
    nan = false;
    if (lnan || rnan) {
      nan = true;
      return true;
    }
    const bool ints = l.is_int() && r.is_int();
    auto overflow = [&](const char* sign) {
      return fail(e.span, std::to_string(l.get_int()) + " " + sign + " " + std::to_string(r.get_int()) +
                              " results in an out of bounds i64");
    };
    auto from_double = [&](double d) {
      if (std::isfinite(d)) {
        out = Value(d);
      } else {
        nan = true;
      }
    };
    switch (e.math_op) {
      case MathOp::Add:
      case MathOp::Sub:
        if (ints) {
          long long res;
          bool bad = e.math_op == MathOp::Add ? __builtin_add_overflow(l.get_int(), r.get_int(), &res)
                                              : __builtin_sub_overflow(l.get_int(), r.get_int(), &res);
          if (bad) return overflow(e.math_op == MathOp::Add ? "+" : "-");
          out = Value(static_cast<long>(res));
        } else {
          double d = e.math_op == MathOp::Add ? l.as_double() + r.as_double() : l.as_double() - r.as_double();
          if (!std::isfinite(d)) return fail(e.span, "the result is not a finite number");
          out = Value(d);
        }
        return true;
      case MathOp::Mul:
        if (ints) {
          long long res;
          if (__builtin_mul_overflow(l.get_int(), r.get_int(), &res)) return overflow("x");
          out = Value(static_cast<long>(res));
        } else {
          from_double(l.as_double() * r.as_double());
        }
        return true;
      case MathOp::Div: {
        double d = l.as_double() / r.as_double();
        if (std::isnan(d)) {
          nan = true;
        } else if (std::isfinite(d) && std::round(d) == d) {
          // Rust's `as i64` saturates.
          if (d >= 9223372036854775807.0) out = Value(std::numeric_limits<long>::max());
          else if (d <= -9223372036854775808.0) out = Value(std::numeric_limits<long>::min());
          else out = Value(static_cast<long>(d));
        } else {
          from_double(d);
        }
        return true;
      }
      case MathOp::Mod:
        if (ints) {
          if (r.get_int() == 0) {
            return fail(e.span, "Tried to do a modulo by zero: " + std::to_string(l.get_int()) + "/0");
          }
          if (r.get_int() == -1 && l.get_int() == std::numeric_limits<int64_t>::min()) {
            // Rust's remainder overflows there and Tera panics: an error here.
            return fail(e.span, std::to_string(l.get_int()) + " % -1 results in an out of bounds i64");
          }
          out = Value(static_cast<long>(r.get_int() == -1 ? 0 : l.get_int() % r.get_int()));
        } else {
          double d = std::fmod(l.as_double(), r.as_double());
          if (std::isnan(d)) nan = true;
          else out = Value(d);
        }
        return true;
    }
    return true;
  }

  bool eval_in(const Expr& e, bool& out) {
    if (!take_step(e.span)) return false;
    Value needle, haystack;
    if (!eval(*e.lhs, needle) || !eval(*e.rhs, haystack)) return false;
    bool present = false;
    if (haystack.is_array()) {
      if (!charge(haystack.size(), e.span)) return false;
      for (const Value& item : haystack.get_array()) {
        Result<bool> same = equal_values(item, needle, budget_);
        if (!same) return limit_hit(e.span);
        if (*same) {
          present = true;
          break;
        }
      }
    } else if (haystack.is_string()) {
      if (!needle.is_string()) return fail(e.span, "Tried to check if a non-string is in a string");
      if (!charge(haystack.get_string().size() + needle.get_string().size(), e.span)) return false;
      present = find_text(haystack.get_string(), needle.get_string()) != std::string_view::npos;
    } else if (haystack.is_object()) {
      if (!needle.is_string()) return fail(e.span, "Tried to check if a non-string is in an object");
      if (!charge(needle.get_string().size(), e.span)) return false;
      present = haystack.find(needle.get_string()) != nullptr;
    } else {
      return fail(e.span, "The `in` operator only supports strings, arrays and objects.");
    }
    out = e.inverted ? !present : present;
    return true;
  }

  bool eval_test(const Expr& e, bool& out) {
    if (!e.test_def) return fail(e.span, "Test '" + std::string(e.name) + "' not found");
    if (!take_step(e.span)) return false;
    std::vector<Value> args;
    args.reserve(e.items.size());
    for (const ExprPtr& a : e.items) {
      Value v;
      if (!eval(*a, v)) return false;
      args.push_back(std::move(v));
    }
    if (args.size() < e.test_def->min_args || args.size() > e.test_def->max_args) {
      return fail(e.span, "Test `" + std::string(e.name) + "` takes " + std::to_string(e.test_def->min_args) +
                              (e.test_def->max_args != e.test_def->min_args
                                   ? " to " + std::to_string(e.test_def->max_args)
                                   : std::string()) +
                              " argument(s), got " + std::to_string(args.size()));
    }
    Value subject;
    bool found = false;
    Snapshot snap = snapshot();
    if (!lookup(*e.lhs, subject, found)) {
      restore(snap);
      found = false;
    }
    Result<bool> r = e.test_def->fn(found ? &subject : nullptr, args, budget_);
    if (!r) {
      if (spent()) return limit_hit(e.span);
      return fail(e.span, "Test call '" + std::string(e.name) + "' failed: " + r.error().message);
    }
    out = e.inverted ? !r.value() : r.value();
    return true;
  }

  // ---- macros ------------------------------------------------------------

  using NamespaceMap = std::map<std::string_view, const LinkedTemplate*, std::less<>>;

  // Which template each macro namespace of `tpl` refers to, as Tera collects
  // them: `self`, then imports (and their own namespaces), then parents'.
  const NamespaceMap& namespaces(const LinkedTemplate* tpl) {
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

  const LinkedTemplate* macro_scope() {
    if (current().kind == FrameKind::Macro) return current().active;
    if (!blocks_.empty()) return blocks_.back().tpl;
    if (&rendered_ != root_) return root_;
    return current().active;
  }

  bool call_macro(const Expr& e, std::string& out) {
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

  // ---- nodes -------------------------------------------------------------

  bool should_break_body() const {
    const Frame& f = frames_[depth_ - 1];
    return f.kind == FrameKind::For && f.loop.state != LoopState::Normal;
  }

  bool render_body(const Body& body, std::string& out) {
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

  bool write_value(const Value& v, const Expr& e, std::string& out) {
    if (options_.autoescape && v.is_string() && (e.filters.empty() || e.filters.back().name != "safe")) {
      append_html_escaped(out, v.get_string());
      return true;
    }
    if (append_rendered(out, v, options_.max_output_bytes)) [[likely]] return true;
    return output_too_large(e.span);
  }

  // A thin dispatcher: each kind of node has its own function, which keeps
  // the frame of this much-called function small. Inlined into the body
  // loop, its only caller: a call per node cost more than the dispatch.
  [[gnu::always_inline]] bool render_node(const Node& node, std::string& out) {
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

  bool render_print(const Node& node, std::string& out) {
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

  static bool ends_in_plain_json_encode(const Expr& e) {
    return !e.filters.empty() && e.filters.back().def && e.filters.back().name == "json_encode" &&
           e.filters.back().args.empty();
  }

  // `{{ x | json_encode() }}` writes the JSON straight to the output rather
  // than into a string value that is then copied there: templates of
  // manifests do this for every label value.
  bool print_json(const Expr& e, std::string& out) {
    Value v;
    bool settled = false;  // only for `not`, which does not come here
    if (!eval_unfiltered(e, v, settled)) return false;
    if (!apply_filters(e, e.filters.size() - 1, v)) return false;
    const FilterCall& encode = e.filters.back();
    const size_t before = out.size();
    if (!append_json_within(out, v, options_.max_output_bytes)) return output_too_large(encode.span);
    return charge(1 + out.size() - before, encode.span);  // the call, and the text written
  }

  bool render_if(const Node& node, std::string& out) {
    for (const IfBranch& branch : node.branches) {
      bool b;
      if (!eval_bool(*branch.condition, b)) return false;
      if (b) return render_body(branch.body, out);
    }
    if (node.has_else) return render_body(node.else_body, out);
    return true;
  }

  bool render_set(const Node& node) {
    Value v;
    if (!eval(*node.expr, v)) return false;
    Frame& frame = node.global ? global_frame() : current();
    if (!charge(frame.locals.size(), node.span)) return false;  // assign looks through them
    frame.assign(node.set_name, std::move(v));
    return true;
  }

  bool render_filter_section(const Node& node, std::string& out) {
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

  bool render_loop_control(const Node& node) {
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

  bool render_for(const Node& node, std::string& out) {
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

  bool render_include(const Node& node, std::string& out) {
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

  bool render_definition(const LinkedTemplate* owner, const Node& block, std::string& out) {
    const Template* saved = source_;
    source_ = owner->tpl.get();
    bool ok = render_body(block.body, out);
    source_ = saved;
    return ok;
  }

  // The child's definition wins; otherwise each parent's in turn; otherwise
  // the body written here.
  bool render_block(const Node& node, size_t level, std::string& out) {
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

  bool render_super(const Node& node, std::string& out) {
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

  const Registry& registry_;
  const LinkedTemplate& rendered_;
  const LinkedTemplate* root_;
  const Value& context_;
  const RenderOptions& options_;
  Budget budget_;
  const Template* source_ = nullptr;  // the template of the code running now

  std::vector<Frame> frames_;
  size_t depth_ = 0;
  Value last_checked_;  // the list or object check_nesting saw last, and its nesting
  size_t last_checked_depth_ = 0;
  Value scratch_;               // see lookup_keys
  std::vector<Arg> arg_stack_;  // see ArgFrame
  std::vector<ActiveBlock> blocks_;
  std::map<const LinkedTemplate*, NamespaceMap> namespace_cache_;
  size_t macro_depth_ = 0;
  size_t include_depth_ = 0;
  // The frames below the code running now are its own template's, so the
  // frame hints of resolve_scopes hold.
  bool own_frames_ = true;

  bool failed_ = false;
  const Template* error_source_ = nullptr;
  Span error_span_;
  std::string error_message_;
};

}  // namespace

Result<std::string, TemplateError> render_linked(const Registry& registry, const LinkedTemplate& tpl,
                                                 const Value& context, const RenderOptions& options) {
  Renderer renderer(registry, tpl, context, options);
  std::string out;
  out.reserve(tpl.tpl->source.size() * 2);
  if (!renderer.run(out)) return renderer.take_error();
  return out;
}

}  // namespace sindri::tera
