#pragma once
// The parsed form of a template. Built once by the parser, never changed
// afterwards, walked by the renderer.

#include <cstdint>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

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

// Nodes and expressions are placed in their template's arena (Template::arena):
// their owners run the destructors, the arena frees the memory all at once.
template <class T>
struct ArenaDestroy {
  void operator()(T* p) const noexcept { p->~T(); }
};
template <class T>
using ArenaPtr = std::unique_ptr<T, ArenaDestroy<T>>;

template <class T>
ArenaPtr<T> arena_new(Arena& arena) {
  return ArenaPtr<T>(new (arena.allocate(sizeof(T), alignof(T))) T());
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

template <class T>
struct ArenaAllocator {
  using value_type = T;
  ArenaAllocator() noexcept = default;
  template <class U>
  ArenaAllocator(const ArenaAllocator<U>&) noexcept {}
  T* allocate(size_t n) { return static_cast<T*>(parse_arena()->allocate(n * sizeof(T), alignof(T))); }
  void deallocate(T*, size_t) noexcept {}
  friend bool operator==(const ArenaAllocator&, const ArenaAllocator&) noexcept { return true; }
};

template <class T>
using AstList = std::vector<T, ArenaAllocator<T>>;

struct Expr;
using ExprPtr = ArenaPtr<Expr>;

struct NamedArg {
  std::string name;
  ExprPtr value;
};

struct FilterCall {
  std::string name;
  const FilterDef* def = nullptr;  // null when unknown: a render error, as in Tera
  AstList<NamedArg> args;
  Span span;
};

// One step of a variable path: `.name`, `.0`, `["key"]`, `[0]` or `[other.path]`.
struct PathSegment {
  std::string_view key;  // static key (a view into the source), also an array index
  ExprPtr dynamic;  // `[var]`: a Path expression evaluated at render time
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

  Value literal;
  bool literal_is_string = false;

  // Path: the root name and the segments after it; `dotted` is the path as
  // written, for messages. Both are views into the template's source.
  std::string_view root;
  AstList<PathSegment> segments;
  std::string_view dotted;

  AstList<ExprPtr> items;  // Array items, Concat parts, Test args
  ExprPtr lhs, rhs;
  MathOp math_op = MathOp::Add;
  CompareOp compare_op = CompareOp::Eq;
  LogicOp logic_op = LogicOp::And;

  std::string name;       // Test, Call and MacroCall name
  std::string space;      // MacroCall namespace
  const TestDef* test_def = nullptr;
  const FunctionDef* function_def = nullptr;
  AstList<NamedArg> args;  // Call and MacroCall

  AstList<FilterCall> filters;
};

struct Node;
using NodePtr = ArenaPtr<Node>;
using Body = AstList<NodePtr>;

struct IfBranch {
  WS ws;
  ExprPtr condition;
  Body body;
};

struct MacroParam {
  std::string name;
  ExprPtr default_value;  // null: required
};

struct MacroDefinition {
  std::string name;
  std::vector<MacroParam> params;
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

  ExprPtr expr;  // Print, Set value, For container

  // If
  AstList<IfBranch> branches;
  bool has_else = false;
  WS else_ws;
  Body else_body;

  // For
  std::string key_var;  // empty unless `for k, v in`
  std::string value_var;
  Body body;  // For, FilterSection, Block
  bool has_empty_body = false;
  Body empty_body;

  // Set
  std::string set_name;
  bool global = false;

  FilterCall filter;  // FilterSection

  // Include
  std::vector<std::string> include_names;
  bool ignore_missing = false;

  // Import: `text` is the file, `set_name` the namespace
  std::unique_ptr<MacroDefinition> macro;  // MacroDef
};

}  // namespace sindri::tera
