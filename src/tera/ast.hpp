#pragma once
// The parsed form of a template. Built once by the parser, never changed
// afterwards, walked by the renderer.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

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

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct NamedArg {
  std::string name;
  ExprPtr value;
};

struct FilterCall {
  std::string name;
  const FilterDef* def = nullptr;  // null when unknown: a render error, as in Tera
  std::vector<NamedArg> args;
  Span span;
};

// One step of a variable path: `.name`, `.0`, `["key"]`, `[0]` or `[other.path]`.
struct PathSegment {
  std::string key;  // static key, also used as an array index
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
  // Tera spells it in messages.
  std::string root;
  std::vector<PathSegment> segments;
  std::string dotted;

  std::vector<ExprPtr> items;  // Array items, Concat parts, Test args
  ExprPtr lhs, rhs;
  MathOp math_op = MathOp::Add;
  CompareOp compare_op = CompareOp::Eq;
  LogicOp logic_op = LogicOp::And;

  std::string name;       // Test, Call and MacroCall name
  std::string space;      // MacroCall namespace
  const TestDef* test_def = nullptr;
  const FunctionDef* function_def = nullptr;
  std::vector<NamedArg> args;  // Call and MacroCall

  std::vector<FilterCall> filters;
};

struct Node;
using NodePtr = std::unique_ptr<Node>;
using Body = std::vector<NodePtr>;

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

  std::string text;  // Text, Raw; Extends/Import/Block: the template or block name

  ExprPtr expr;  // Print, Set value, For container

  // If
  std::vector<IfBranch> branches;
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
