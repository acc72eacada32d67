#pragma once
// The renderer's private header. It walks a linked template's syntax tree and
// writes its output; the rules for scopes, truthiness, arithmetic and errors
// are Tera's, quirks included (they are marked where they surprise). Its work
// is split as Tera's renderer/ is: frames and lookups (frames.cpp),
// expression evaluation (eval.cpp), statements and macros (statements.cpp).
// What every variable, expression and node goes through stays inline here.

#include <cmath>
#include <limits>
#include <map>
#include <span>

#include "tera/builtins/unicode.hpp"
#include "tera/linked.hpp"
#include "value/json.hpp"
#include "value/number_format.hpp"

namespace sindri::tera::rendering {

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

inline std::string_view text_of(std::string_view key) { return key; }
inline std::string_view text_of(const KeyProbe& key) { return key.text(); }

inline bool parse_index(std::string_view key, size_t& index) {
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
inline const Value* step(const Value* v, const Key& key) {
  if (v->is_object()) return v->find(key);
  if (v->is_array()) {
    size_t index;
    if (!parse_index(text_of(key), index)) return nullptr;
    return v->at(index);
  }
  return nullptr;
}

class Renderer {
 public:
  Renderer(const Registry& registry, const LinkedTemplate& tpl, const Value& context, const RenderOptions& options)
      : registry_(registry), rendered_(tpl), context_(context), options_(options), budget_(options) {
    root_ = tpl.parents.empty() ? &tpl : tpl.parents.back();
    frames_.reserve(kUsualFrameDepth);
  }

  bool run(std::string& out);

  TemplateError take_error();

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
  bool nesting_of(const Value& v, size_t level, size_t& depth, Span span);

  bool check_output(const std::string& out, Span span) {
    if (out.size() <= options_.max_output_bytes) [[likely]] return true;
    return output_too_large(span);
  }

  // The failures are kept out of line so that the checks above stay cheap.
  [[gnu::cold, gnu::noinline]] bool limit_hit(Span span);
  [[gnu::cold, gnu::noinline]] bool output_too_large(Span span);

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

  bool segment_keys(const Expr& path, Keys& keys);

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
  [[gnu::noinline]] bool lookup_dynamic(const Expr& path, const Value*& v);

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
  Value context_dump();

  // The text of `__tera_context`, bounded as any value a template builds:
  // locals may share a long list many times. Past the limit it is empty,
  // the limit is recorded and the render ends there.
  Value context_text(Span span);

  bool not_found(const Expr& path);

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

  bool eval_args(const AstList<NamedArg>& args);

  bool apply_filter(const FilterCall& f, Value& value);

  // The first `count` filters of `e`.
  bool apply_filters(const Expr& e, size_t count, Value& value);

  bool default_value(const Expr& e, Value& out);

  bool has_default(const Expr& e) const { return !e.filters.empty() && e.filters[0].name == "default"; }

  bool call_function(const Expr& e, Value& out);

  // Each part is checked against the size limit before it is appended, and
  // the text is charged as written.
  bool eval_concat(const Expr& e, Value& out);

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
  bool eval_unfiltered(const Expr& e, Value& out, bool& settled);

  // Tera's eval_as_bool.
  bool eval_bool(const Expr& e, bool& out);

  struct Snapshot {
    bool failed;
  };
  Snapshot snapshot() const { return {failed_}; }
  // A limit that was hit is never undone: the render ends with it.
  void restore(const Snapshot& s);

  // `mixed_kinds` comes back true for == or != between a number and
  // anything else, which Tera answers false whatever the operator.
  bool eval_compare(const Expr& e, bool& res, bool& mixed_kinds);

  // A math operand: with filters it is evaluated as a value and must be a
  // number; without, Tera's eval_as_number rules apply.
  bool eval_number(const Expr& e, Value& out, bool& nan);

  bool eval_number_plain(const Expr& e, Value& out, bool& nan);

  bool eval_math(const Expr& e, Value& out, bool& nan);

  bool eval_in(const Expr& e, bool& out);

  bool eval_test(const Expr& e, bool& out);

  // ---- macros ------------------------------------------------------------

  using NamespaceMap = std::map<std::string_view, const LinkedTemplate*, std::less<>>;

  // Which template each macro namespace of `tpl` refers to, as Tera collects
  // them: `self`, then imports (and their own namespaces), then parents'.
  inline const NamespaceMap& namespaces(const LinkedTemplate* tpl);

  inline const LinkedTemplate* macro_scope();

  bool call_macro(const Expr& e, std::string& out);

  // ---- nodes -------------------------------------------------------------
  // The functions below declared inline are defined in statements.cpp and
  // called only there: inline, GCC may fold them into the body loop as it
  // did when the renderer was one file.

  bool should_break_body() const {
    const Frame& f = frames_[depth_ - 1];
    return f.kind == FrameKind::For && f.loop.state != LoopState::Normal;
  }

  inline bool render_body(const Body& body, std::string& out);

  inline bool write_value(const Value& v, const Expr& e, std::string& out);

  // A thin dispatcher: each kind of node has its own function, which keeps
  // the frame of this much-called function small. Inlined into the body
  // loop, its only caller: a call per node cost more than the dispatch.
  [[gnu::always_inline]] inline bool render_node(const Node& node, std::string& out);


  inline bool render_print(const Node& node, std::string& out);

  inline static bool ends_in_plain_json_encode(const Expr& e);

  // `{{ x | json_encode() }}` writes the JSON straight to the output rather
  // than into a string value that is then copied there: templates of
  // manifests do this for every label value.
  inline bool print_json(const Expr& e, std::string& out);

  inline bool render_if(const Node& node, std::string& out);

  inline bool render_set(const Node& node);

  inline bool render_filter_section(const Node& node, std::string& out);

  inline bool render_loop_control(const Node& node);

  inline bool render_for(const Node& node, std::string& out);

  inline bool render_include(const Node& node, std::string& out);

  inline bool render_definition(const LinkedTemplate* owner, const Node& block, std::string& out);

  // The child's definition wins; otherwise each parent's in turn; otherwise
  // the body written here.
  inline bool render_block(const Node& node, size_t level, std::string& out);

  inline bool render_super(const Node& node, std::string& out);

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

}  // namespace sindri::tera::rendering
