#pragma once
// The parsed form of a template. Built once by the parser, never changed
// afterwards, walked by the renderer.

#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>

#include "tera/arena.hpp"
#include "tera/builtins.hpp"
#include "value/value.hpp"

namespace sindri::tera {

struct Span {
  uint32_t offset = 0;
  uint32_t length = 0;
};

// Whitespace control marks of one tag: `{%-` (left) and `-%}` (right).
struct WS {
  bool left = false;
  bool right = false;
};

// Nodes and expressions live in their template's arena (Template::arena) and
// are all trivially destructible: freeing a tree is freeing the arena's
// chunks, with no walk over its nodes.
template <class T>
T* arena_new(Arena& arena) {
  static_assert(std::is_trivially_destructible_v<T>, "the arena never runs destructors");
  // Default-initialised: every member has its own initialiser, so zeroing
  // the whole object first would write it twice.
  return new (arena.allocate(sizeof(T), alignof(T))) T;
}

// The lists inside the tree take their memory from the arena of the template
// being parsed, so that building and freeing a tree costs no malloc/free.
// The tree never changes after parsing, so the arena is only needed while a
// ParseArenaScope is active on this thread; freeing is the arena's job.
Arena*& parse_arena();

class ParseArenaScope {
 public:
  explicit ParseArenaScope(Arena& arena) : saved_(parse_arena()) { parse_arena() = &arena; }
  ~ParseArenaScope() { parse_arena() = saved_; }
  ParseArenaScope(const ParseArenaScope&) = delete;
  ParseArenaScope& operator=(const ParseArenaScope&) = delete;

 private:
  Arena* saved_;
};

// A growable list of plain elements in the parse arena. Growing copies into
// a larger block and leaves the old one to the arena.
template <class T>
class AstList {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& front() { return data_[0]; }
  const T& front() const { return data_[0]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }

  void push_back(const T& value) {
    if (size_ == capacity_) grow(capacity_ ? capacity_ * 2 : 4);
    data_[size_++] = value;
  }
  void pop_back() { --size_; }
  void truncate(size_t size) { size_ = static_cast<uint32_t>(size); }

 private:
  void grow(uint32_t capacity) {
    T* fresh = static_cast<T*>(parse_arena()->allocate(capacity * sizeof(T), alignof(T)));
    if (size_) std::memcpy(static_cast<void*>(fresh), data_, size_ * sizeof(T));
    data_ = fresh;
    capacity_ = capacity;
  }

  T* data_ = nullptr;
  uint32_t size_ = 0;
  uint32_t capacity_ = 0;
};

struct Expr;
using ExprPtr = Expr*;

struct NamedArg {
  std::string_view name;
  ExprPtr value = nullptr;
};

struct FilterCall {
  std::string_view name;
  const FilterDef* def = nullptr;  // null when unknown: a render error, as in Tera
  AstList<NamedArg> args;
  Span span;
};

// One step of a variable path: `.name`, `.0`, `["key"]`, `[0]` or `[other.path]`.
struct PathSegment {
  KeyProbe key;  // static key (a view into the source), also an array index
  ExprPtr dynamic = nullptr;  // `[var]`: a Path expression evaluated at render time
  bool after_dot = false;     // written `.name`, not in brackets
};

// Where a variable read finds its value, as far as the template's own text
// tells (scopes.cpp).
enum class VariableBinding : uint8_t {
  Frames,     // ask each frame from `frames_to_skip` outwards, then the context
  Context,    // no frame can hold it
  LoopValue,  // the value variable of that loop
  LoopKey,    // the key variable of that loop
  LoopMagic,  // `loop` of that loop
};

enum class MathOp : uint8_t { Add, Sub, Mul, Div, Mod };
enum class CompareOp : uint8_t { Eq, NotEq, Lt, Lte, Gt, Gte };
enum class LogicOp : uint8_t { And, Or };

struct Expr {
  enum class Kind : uint8_t {
    Literal,    // int, float, bool or string
    Path,       // a variable with its segments
    Array,      // [a, b]
    Concat,     // a ~ b ~ c
    Math,       // lhs op rhs
    Compare,    // lhs op rhs
    Logic,      // lhs and/or rhs
    In,         // lhs [not] in rhs
    Test,       // path is [not] name(args)
    Call,       // function(args)
    MacroCall,  // ns::name(args)
  };
  Kind kind = Kind::Literal;
  bool negated = false;   // `not` in front
  bool inverted = false;  // Test: `is not`; In: `not in`
  Span span;

  const Value* literal = nullptr;  // owned by the template (Template::literals)
  bool literal_is_string = false;

  // Path: the root name and the segments after it; `dotted` is the path as
  // written, for messages. Both are views into the template's source.
  std::string_view root;
  KeyProbe root_key;  // `root`, for finding it in the context
  AstList<PathSegment> segments;
  bool dynamic_segments = false;  // some segment is `[other.path]`
  std::string_view dotted;
  // Path, set by resolve_scopes: how many innermost frames cannot hold
  // `root`, and how the next one holds it. Valid only while the frames are
  // this template's own (the renderer knows when).
  uint32_t frames_to_skip = 0;
  VariableBinding binding = VariableBinding::Frames;

  AstList<ExprPtr> items;  // Array items, Concat parts, Test args
  ExprPtr lhs = nullptr, rhs = nullptr;
  MathOp math_op = MathOp::Add;
  CompareOp compare_op = CompareOp::Eq;
  LogicOp logic_op = LogicOp::And;

  std::string_view name;   // Test, Call and MacroCall name
  std::string_view space;  // MacroCall namespace
  const TestDef* test_def = nullptr;
  const FunctionDef* function_def = nullptr;
  AstList<NamedArg> args;  // Call and MacroCall

  AstList<FilterCall> filters;
};

struct Node;
using NodePtr = Node*;
using Body = AstList<NodePtr>;

struct IfBranch {
  WS ws;
  ExprPtr condition = nullptr;
  Body body;
};

struct MacroParam {
  std::string_view name;
  ExprPtr default_value = nullptr;  // null: required
};

struct MacroDefinition {
  std::string_view name;
  AstList<MacroParam> params;
  Body body;
  Span span;
};

struct Node {
  enum class Kind : uint8_t {
    Text,
    Raw,
    Print,
    Comment,
    If,
    For,
    Set,
    FilterSection,
    Include,
    Block,
    Super,
    Break,
    Continue,
    MacroDef,
    Extends,
    Import,
  };
  Kind kind = Kind::Text;
  WS ws;      // the opening tag
  WS end_ws;  // the closing tag of tags with a body
  Span span;  // the opening tag

  // Text, Raw; Extends/Import/Block: the template or block name. A view into
  // the template's source.
  std::string_view text;

  ExprPtr expr = nullptr;  // Print, Set value, For container

  // If
  AstList<IfBranch> branches;
  bool has_else = false;
  WS else_ws;
  Body else_body;

  // For
  std::string_view key_var;  // empty unless `for k, v in`
  std::string_view value_var;
  Body body;  // For, FilterSection, Block
  bool has_empty_body = false;
  Body empty_body;

  // Set
  std::string_view set_name;
  bool global = false;

  FilterCall filter;  // FilterSection

  // Include
  AstList<std::string_view> include_names;
  bool ignore_missing = false;

  // Import: `text` is the file, `set_name` the namespace
  MacroDefinition* macro = nullptr;  // MacroDef
};

static_assert(std::is_trivially_destructible_v<Node> && std::is_trivially_destructible_v<Expr>);

}  // namespace sindri::tera
