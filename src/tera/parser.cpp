// Tokens to syntax tree. The structure follows Tera 1.20's grammar: which
// tags may appear where, which expressions may stand in which place, and the
// precedence of operators.

#include <charconv>
#include <cmath>

#include "tera/lexer.hpp"
#include "tera/template.hpp"

namespace sindri::tera {

namespace {

// Deep nesting is refused rather than allowed to exhaust the stack.
constexpr size_t kMaxTagDepth = 512;
constexpr size_t kMaxExprDepth = 256;
// A chain of operators (`a + b + c ...`, `a or b or ...`) is read by a loop
// but nests as deep as it is long, and every later pass recurses over it.
constexpr size_t kMaxChainedOperators = 1000;
constexpr size_t kMaxLookahead = 3;

// What kind of body we are in decides which tags are allowed (Tera's
// content, block_content, for_content, macro_content, filter_section_content).
enum class Context { Top, Block, For, Macro, FilterSection };

std::string describe_token(const Token& t) {
  switch (t.kind) {
    case Tok::End:
      return "end of input";
    case Tok::Close:
      return "`" + std::string(t.text) + "`";
    case Tok::String:
      return "a string";
    case Tok::Int:
    case Tok::Float:
      return "`" + std::string(t.text) + "`";
    case Tok::Text:
      return "some text";
    case Tok::Comment:
      return "a comment";
    case Tok::Raw:
      return "a raw block";
    case Tok::VarOpen:
    case Tok::TagOpen:
      return "`" + std::string(t.text) + "`";
    default:
      return "`" + std::string(t.text) + "`";
  }
}

// A name (of a variable, macro, filter, argument...): an identifier alone.
bool is_ident(const Token& t) { return t.kind == Tok::Path && t.plain_ident; }

class Parser {
 public:
  // The tokens end with End; copies of it pad the list so that lookahead
  // (three tokens at most) needs no bounds check.
  Parser(Template& tpl, std::vector<Token> tokens) : tpl_(tpl), tokens_(std::move(tokens)), end_(tokens_.size() - 1) {
    tokens_.resize(tokens_.size() + kMaxLookahead, tokens_.back());
  }

  bool parse(Body& out) {
    // Leading comments are dropped before anything else, whitespace marks and all.
    while (peek().kind == Tok::Comment) ++pos_;
    if (!parse_top_imports(out)) return false;
    std::string_view end_tag;
    if (!parse_body(Context::Top, out, end_tag)) return false;
    if (!end_tag.empty()) return fail_at(tag_keyword_token(), "unexpected `{% " + std::string(end_tag) + " %}`");
    return true;
  }

  TemplateError error() const { return tpl_.error_at(ErrorKind::Parse, error_span_, error_message_); }

 private:
  // ---- token access ------------------------------------------------------

  const Token& peek(size_t ahead = 0) const {
    return tokens_[pos_ + ahead];
  }
  const Token& next() {
    const Token& t = peek();
    if (pos_ < end_) ++pos_;
    return t;
  }
  // Operators are one or two characters: compared inline rather than by memcmp.
  bool peek_op(std::string_view op, size_t ahead = 0) const {
    const Token& t = peek(ahead);
    return t.kind == Tok::Op && t.text.size() == op.size() && t.text[0] == op[0] &&
           (op.size() == 1 || t.text[1] == op[1]);
  }
  bool peek_word(std::string_view word, size_t ahead = 0) const {
    const Token& t = peek(ahead);
    return t.kind == Tok::Path && t.text == word;
  }
  // `and`, `or` and `not` are operators only when white space follows them.
  bool peek_keyword(std::string_view word) const {
    const Token& t = peek();
    if (t.kind != Tok::Path || t.text != word) return false;
    const Token& after = peek(1);
    return after.offset > t.offset + t.length;
  }
  bool accept_op(std::string_view op) {
    if (!peek_op(op)) return false;
    ++pos_;
    return true;
  }
  const Token& tag_keyword_token() const { return peek(1); }

  bool fail_at(const Token& t, std::string message) {
    if (!failed_) {
      failed_ = true;
      error_span_ = Span{t.offset, t.length};
      error_message_ = std::move(message);
    }
    return false;
  }
  bool expected(std::string what) { return fail_at(peek(), "expected " + what + ", found " + describe_token(peek())); }

  // Backtracking: expression alternatives are tried in order, as in a PEG.
  struct Mark {
    size_t pos;
    bool failed;
  };
  Mark mark() const { return {pos_, failed_}; }
  void reset(const Mark& m) {
    pos_ = m.pos;
    failed_ = m.failed;
  }

  Span span_from(size_t first_token) const {
    const Token& a = tokens_[first_token];
    const Token& b = tokens_[pos_ > first_token ? pos_ - 1 : first_token];
    return Span{a.offset, b.offset + b.length - a.offset};
  }

  // ---- template structure ----------------------------------------------

  // `{% extends %}` and `{% import %}` come first and swallow the whitespace
  // around them.
  bool parse_top_imports(Body& out) {
    bool seen_extends = false;
    while (true) {
      size_t tag_at = pos_;
      if (peek().kind == Tok::Text && peek().text.find_first_not_of(" \t\r\n") == std::string_view::npos) ++tag_at;
      const Token& open = tag_at < tokens_.size() ? tokens_[tag_at] : tokens_.back();
      const Token& word = tag_at + 1 < tokens_.size() ? tokens_[tag_at + 1] : tokens_.back();
      if (open.kind != Tok::TagOpen || word.kind != Tok::Path) return true;
      bool is_extends = word.text == "extends";
      if (!is_extends && word.text != "import") return true;
      if (is_extends && seen_extends) return true;
      pos_ = tag_at;
      NodePtr node = is_extends ? parse_extends() : parse_import();
      if (!node) return false;
      if (is_extends) seen_extends = true;
      out.push_back(node);
      if (peek().kind == Tok::Text) {
        Token& text = tokens_[pos_];
        size_t skip = text.text.find_first_not_of(" \t\r\n");
        if (skip == std::string_view::npos) {
          ++pos_;
        } else {
          text.text.remove_prefix(skip);
          text.offset += static_cast<uint32_t>(skip);
          text.length -= static_cast<uint32_t>(skip);
        }
      }
    }
  }

  NodePtr parse_extends() {
    size_t start = pos_;
    auto node = arena_new<Node>(tpl_.arena);
    node->kind = Node::Kind::Extends;
    node->ws.left = next().trim_left;
    next();  // extends
    if (peek().kind != Tok::String) return expected("a template name (a string)"), nullptr;
    node->text = next().text;
    if (!close_tag(node->ws)) return nullptr;
    node->span = span_from(start);
    tpl_.parent = std::string(node->text);
    tpl_.parent_tag = node->span;
    return node;
  }

  NodePtr parse_import() {
    size_t start = pos_;
    auto node = arena_new<Node>(tpl_.arena);
    node->kind = Node::Kind::Import;
    node->ws.left = next().trim_left;
    next();  // import
    if (peek().kind != Tok::String) return expected("a template name (a string)"), nullptr;
    node->text = next().text;
    if (!peek_word("as")) return expected("`as`"), nullptr;
    next();
    if (!is_ident(peek())) return expected("a namespace name"), nullptr;
    node->set_name = next().text;
    if (!close_tag(node->ws)) return nullptr;
    node->span = span_from(start);
    tpl_.imports.push_back(Template::Import{std::string(node->text), std::string(node->set_name), node->span});
    return node;
  }

  bool close_tag(WS& ws, char kind = '%') {
    if (peek().kind != Tok::Close || peek().close != kind) {
      return expected(kind == '%' ? "`%}` or `-%}`" : "`}}` or `-}}`");
    }
    ws.right = next().trim_right;
    return true;
  }

  static bool is_end_word(std::string_view w) {
    return w == "elif" || w == "else" || w == "endif" || w == "endfor" || w == "endblock" || w == "endmacro" ||
           w == "endfilter" || w == "endraw";
  }

  // Parses nodes until an end tag (elif/else/end*) or the end of input. The
  // end tag is not consumed; its keyword is returned in end_tag.
  bool parse_body(Context ctx, Body& out, std::string_view& end_tag) {
    if (++depth_ > kMaxTagDepth) {
      return fail_at(peek(), "tags nested deeper than " + std::to_string(kMaxTagDepth) + " levels");
    }
    end_tag = {};
    while (true) {
      const Token& t = peek();
      switch (t.kind) {
        case Tok::End:
          --depth_;
          return true;
        case Tok::Text: {
          auto node = arena_new<Node>(tpl_.arena);
          node->kind = Node::Kind::Text;
          node->text = t.text;
          node->span = Span{t.offset, t.length};
          out.push_back(node);
          next();
          break;
        }
        case Tok::Comment: {
          auto node = arena_new<Node>(tpl_.arena);
          node->kind = Node::Kind::Comment;
          node->ws = WS{t.trim_left, t.trim_right};
          node->span = Span{t.offset, t.length};
          out.push_back(node);
          next();
          break;
        }
        case Tok::Raw: {
          auto node = arena_new<Node>(tpl_.arena);
          node->kind = Node::Kind::Raw;
          node->ws = WS{t.trim_left, t.inner_right};
          node->end_ws = WS{t.inner_left, t.trim_right};
          node->text = t.text;
          node->span = Span{t.offset, t.length};
          out.push_back(node);
          next();
          break;
        }
        case Tok::VarOpen: {
          NodePtr node = parse_variable_tag(ctx);
          if (!node) return false;
          out.push_back(node);
          break;
        }
        case Tok::TagOpen: {
          const Token& word = peek(1);
          if (word.kind != Tok::Path) return fail_at(word, "expected a tag name after `{%`, found " + describe_token(word));
          if (is_end_word(word.text)) {
            end_tag = word.text;
            --depth_;
            return true;
          }
          NodePtr node = parse_tag(ctx);
          if (!node) return false;
          out.push_back(node);
          break;
        }
        default:
          return fail_at(t, "unexpected " + describe_token(t));
      }
    }
  }

  NodePtr parse_variable_tag(Context ctx) {
    size_t start = pos_;
    WS ws;
    ws.left = next().trim_left;
    // `{{ super() }}` is its own node inside blocks.
    if (ctx == Context::Block && peek_word("super") && peek_op("(", 1) && peek_op(")", 2) &&
        peek(3).kind == Tok::Close && peek(3).close == '}') {
      pos_ += 4;
      auto node = arena_new<Node>(tpl_.arena);
      node->kind = Node::Kind::Super;
      node->span = span_from(start);
      return node;
    }
    ExprPtr e = parse_value_expr();
    if (!e) return nullptr;
    if (!close_tag(ws, '}')) return nullptr;
    auto node = arena_new<Node>(tpl_.arena);
    node->kind = Node::Kind::Print;
    node->ws = ws;
    node->expr = e;
    node->span = span_from(start);
    return node;
  }

  NodePtr parse_tag(Context ctx) {
    const Token& word = peek(1);
    std::string_view w = word.text;
    if (w == "if" || w == "filter") {
      ++unregistered_blocks_;
      NodePtr node = w == "if" ? parse_if(ctx) : parse_filter_section();
      --unregistered_blocks_;
      return node;
    }
    if (w == "for") return parse_for();
    if (w == "set" || w == "set_global") return parse_set(w == "set_global");
    if (w == "include") return parse_include();
    if (w == "block") {
      if (ctx == Context::For || ctx == Context::Macro) return fail_at(word, "`{% block %}` is not allowed here"), nullptr;
      return parse_block();
    }
    if (w == "macro") {
      if (ctx != Context::Top) return fail_at(word, "macros can only be defined at the top level of a template"), nullptr;
      return parse_macro();
    }
    if (w == "break" || w == "continue") {
      if (ctx != Context::For) return fail_at(word, "`{% " + std::string(w) + " %}` is only allowed inside a for loop"), nullptr;
      size_t start = pos_;
      auto node = arena_new<Node>(tpl_.arena);
      node->kind = w == "break" ? Node::Kind::Break : Node::Kind::Continue;
      node->ws.left = next().trim_left;
      next();
      if (!close_tag(node->ws)) return nullptr;
      node->span = span_from(start);
      return node;
    }
    if (w == "extends" || w == "import") {
      return fail_at(word, "`{% " + std::string(w) + " %}` must come first in the template"), nullptr;
    }
    return fail_at(word, "unknown tag `" + std::string(w) + "`"), nullptr;
  }

  // The opening `{% keyword`; returns its WS with `left` set.
  WS open_tag() {
    WS ws;
    ws.left = next().trim_left;
    next();
    return ws;
  }

  // Consumes `{% word %}` (an end tag) and returns its WS.
  bool end_tag(std::string_view word, WS& ws, bool allow_name = false) {
    if (peek().kind != Tok::TagOpen || !peek_word(word, 1)) {
      return fail_at(peek(1), "expected `{% " + std::string(word) + " %}`, found " + describe_token(peek(1)));
    }
    ws.left = next().trim_left;
    next();
    if (allow_name && is_ident(peek())) next();
    return close_tag(ws);
  }

  NodePtr parse_if(Context ctx) {
    auto node = arena_new<Node>(tpl_.arena);
    node->kind = Node::Kind::If;
    node->span = Span{peek().offset, peek(1).offset + peek(1).length - peek().offset};
    while (true) {
      IfBranch branch;
      branch.ws = open_tag();
      branch.condition = parse_condition();
      if (!branch.condition) return nullptr;
      if (!close_tag(branch.ws)) return nullptr;
      std::string_view end;
      if (!parse_body(ctx, branch.body, end)) return nullptr;
      node->branches.push_back(branch);
      if (end == "elif") continue;
      if (end == "else") {
        node->has_else = true;
        node->else_ws = open_tag();
        if (!close_tag(node->else_ws)) return nullptr;
        if (!parse_body(ctx, node->else_body, end)) return nullptr;
        if (end == "elif") return fail_at(peek(1), "`{% elif %}` after `{% else %}`"), nullptr;
      }
      if (end != "endif") return unexpected_end(end, "endif");
      if (!end_tag("endif", node->end_ws)) return nullptr;
      return node;
    }
  }

  NodePtr unexpected_end(std::string_view found, std::string_view wanted) {
    if (found.empty()) return fail_at(peek(), "unexpected end of input: expected `{% " + std::string(wanted) + " %}`"), nullptr;
    return fail_at(peek(1), "unexpected `{% " + std::string(found) + " %}`: expected `{% " + std::string(wanted) + " %}`"),
           nullptr;
  }

  NodePtr parse_for() {
    size_t start = pos_;
    auto node = arena_new<Node>(tpl_.arena);
    node->kind = Node::Kind::For;
    node->ws = open_tag();
    if (!is_ident(peek())) return expected("a loop variable name"), nullptr;
    node->value_var = next().text;
    if (accept_op(",")) {
      if (!is_ident(peek())) return expected("a loop variable name"), nullptr;
      node->key_var = node->value_var;
      node->value_var = next().text;
    }
    if (!peek_word("in")) return expected("`in`"), nullptr;
    next();
    node->expr = peek_op("[") ? parse_array_filter() : parse_basic_expr_filter();
    if (!node->expr) return nullptr;
    if (!close_tag(node->ws)) return nullptr;
    node->span = span_from(start);
    std::string_view end;
    if (!parse_body(Context::For, node->body, end)) return nullptr;
    // Tera's grammar takes any number of `else` tags in a loop; the body
    // after the last one is the one it keeps.
    while (end == "else") {
      node->has_empty_body = true;
      node->empty_body.truncate(0);
      WS else_ws = open_tag();
      if (!close_tag(else_ws)) return nullptr;
      if (!parse_body(Context::For, node->empty_body, end)) return nullptr;
    }
    if (end != "endfor") return unexpected_end(end, "endfor");
    if (!end_tag("endfor", node->end_ws)) return nullptr;
    return node;
  }

  NodePtr parse_set(bool global) {
    size_t start = pos_;
    auto node = arena_new<Node>(tpl_.arena);
    node->kind = Node::Kind::Set;
    node->global = global;
    node->ws = open_tag();
    if (!is_ident(peek())) return expected("a variable name"), nullptr;
    node->set_name = next().text;
    if (!accept_op("=")) return expected("`=`"), nullptr;
    node->expr = parse_value_expr();
    if (!node->expr) return nullptr;
    if (!close_tag(node->ws)) return nullptr;
    node->span = span_from(start);
    return node;
  }

  NodePtr parse_filter_section() {
    size_t start = pos_;
    auto node = arena_new<Node>(tpl_.arena);
    node->kind = Node::Kind::FilterSection;
    node->ws = open_tag();
    if (!parse_filter_call(node->filter)) return nullptr;
    if (!close_tag(node->ws)) return nullptr;
    node->span = span_from(start);
    std::string_view end;
    if (!parse_body(Context::FilterSection, node->body, end)) return nullptr;
    if (end != "endfilter") return unexpected_end(end, "endfilter");
    if (!end_tag("endfilter", node->end_ws)) return nullptr;
    return node;
  }

  NodePtr parse_include() {
    size_t start = pos_;
    auto node = arena_new<Node>(tpl_.arena);
    node->kind = Node::Kind::Include;
    node->ws = open_tag();
    if (peek().kind == Tok::String) {
      node->include_names.push_back(next().text);
    } else if (accept_op("[")) {
      while (peek().kind == Tok::String) {
        node->include_names.push_back(next().text);
        if (!accept_op(",")) break;
      }
      if (!accept_op("]")) return expected("a string or `]`"), nullptr;
    } else {
      return expected("a template name (a string or a list of strings)"), nullptr;
    }
    if (peek_word("ignore") && peek_word("missing", 1)) {
      pos_ += 2;
      node->ignore_missing = true;
    }
    if (!close_tag(node->ws)) return nullptr;
    node->span = span_from(start);
    tpl_.includes.push_back({node, inside_blocks_and_macros_ == 0});
    return node;
  }

  NodePtr parse_block() {
    size_t start = pos_;
    auto node = arena_new<Node>(tpl_.arena);
    node->kind = Node::Kind::Block;
    node->ws = open_tag();
    if (!is_ident(peek())) return expected("a block name"), nullptr;
    const Token& name_token = next();
    node->text = name_token.text;
    if (!close_tag(node->ws)) return nullptr;
    node->span = span_from(start);
    std::string_view end;
    ++inside_blocks_and_macros_;
    const bool parsed = parse_body(Context::Block, node->body, end);
    --inside_blocks_and_macros_;
    if (!parsed) return nullptr;
    if (end != "endblock") return unexpected_end(end, "endblock");
    if (!end_tag("endblock", node->end_ws, true)) return nullptr;
    if (unregistered_blocks_ > 0) return node;
    if (tpl_.blocks.count(node->text)) return fail_at(name_token, "block `" + std::string(node->text) + "` is duplicated"), nullptr;
    tpl_.blocks.emplace(std::string(node->text), node);
    return node;
  }

  NodePtr parse_macro() {
    size_t start = pos_;
    auto node = arena_new<Node>(tpl_.arena);
    node->kind = Node::Kind::MacroDef;
    node->ws = open_tag();
    MacroDefinition* def = arena_new<MacroDefinition>(tpl_.arena);
    if (!is_ident(peek())) return expected("a macro name"), nullptr;
    const Token& name_token = next();
    def->name = name_token.text;
    if (!accept_op("(")) return expected("`(`"), nullptr;
    while (!peek_op(")")) {
      if (!is_ident(peek())) return expected("an argument name or `)`"), nullptr;
      MacroParam param;
      param.name = next().text;
      for (const MacroParam& p : def->params) {
        if (p.name == param.name) return fail_at(tokens_[pos_ - 1], "argument `" + std::string(param.name) + "` is declared twice"), nullptr;
      }
      if (accept_op("=")) {
        param.default_value = parse_literal();
        if (!param.default_value) return nullptr;
      }
      def->params.push_back(param);
      if (!accept_op(",")) break;
    }
    if (!accept_op(")")) return expected("`,` or `)`"), nullptr;
    if (!close_tag(node->ws)) return nullptr;
    node->span = span_from(start);
    def->span = node->span;
    std::string_view end;
    ++inside_blocks_and_macros_;
    const bool parsed = parse_body(Context::Macro, def->body, end);
    --inside_blocks_and_macros_;
    if (!parsed) return nullptr;
    if (end != "endmacro") return unexpected_end(end, "endmacro");
    if (!end_tag("endmacro", node->end_ws, true)) return nullptr;
    if (tpl_.macros.count(def->name)) return fail_at(name_token, "macro `" + std::string(def->name) + "` is duplicated"), nullptr;
    tpl_.macros.emplace(std::string(def->name), def);
    node->macro = def;
    return node;
  }

  // A macro argument's default: a literal only.
  ExprPtr parse_literal() {
    if (peek().kind == Tok::String) {
      const Token& t = next();
      return make_literal(Value(t.text), Span{t.offset, t.length}, true);
    }
    if (ExprPtr e = parse_boolean()) return e;
    if (ExprPtr e = parse_number()) return e;
    if (!failed_) expected("a literal default value (string, number or boolean)");
    return nullptr;
  }

  // ---- expressions -------------------------------------------------------

  // What `{{ }}`, `set` and keyword arguments accept: logic_expr | array_filter.
  ExprPtr parse_value_expr() {
    if (peek_op("[")) return parse_array_filter();
    return parse_condition();
  }

  // What `if` and `elif` accept: logic_expr.
  ExprPtr parse_condition() {
    if (ExprPtr e = parse_lone_path()) return e;
    if (failed_) return nullptr;
    return parse_logic_expr();
  }

  static bool is_reserved_word(std::string_view w) {
    switch (w.size()) {
      case 2: return w == "in" || w == "is" || w == "or";
      case 3: return w == "not" || w == "and";
      case 4: return w == "true" || w == "True";
      case 5: return w == "false" || w == "False";
      default: return false;
    }
  }

  // Most expressions are a variable, maybe filtered, alone before `}}`,
  // `%}`, `,` or `)`: that case is parsed directly rather than down every
  // precedence level, to the same tree. Anything else returns null with
  // nothing consumed (and no error) for the full grammar to parse.
  ExprPtr parse_lone_path() {
    const Token& t = peek();
    if (t.kind != Tok::Path || is_reserved_word(t.text)) return nullptr;
    const Token& after = peek(1);
    if (after.kind != Tok::Close && !peek_op("|", 1) && !peek_op(",", 1) && !peek_op(")", 1)) return nullptr;
    // Filter arguments recurse through here; the depth counts the two levels
    // the full grammar would pass through, so that the limit stays where it was.
    DepthGuard as_logic_expr(expr_depth_);
    DepthGuard as_basic_expr(expr_depth_);
    if (expr_depth_ > kMaxExprDepth) return fail_at(t, "expression nested too deeply"), nullptr;
    size_t start = pos_;
    next();
    ExprPtr e = parse_path(t);
    if (!e || !parse_filters(e->filters)) return nullptr;
    if (!e->filters.empty()) e->span = span_from(start);
    if (peek().kind == Tok::Close || peek_op(",") || peek_op(")")) return e;
    pos_ = start;
    return nullptr;
  }

  void too_many_operators() {
    fail_at(peek(), "more than " + std::to_string(kMaxChainedOperators) +
                        " operators in a row in one expression; build it in steps with `set`");
  }

  struct DepthGuard {
    size_t& depth;
    explicit DepthGuard(size_t& d) : depth(d) { ++depth; }
    ~DepthGuard() { --depth; }
  };

  ExprPtr parse_logic_expr() {
    DepthGuard guard(expr_depth_);
    if (expr_depth_ > kMaxExprDepth) return fail_at(peek(), "expression nested too deeply"), nullptr;
    size_t start = pos_;
    ExprPtr lhs = parse_and_expr();
    if (!lhs) return nullptr;
    for (size_t chained = 0; peek_keyword("or"); ++chained) {
      if (chained == kMaxChainedOperators) return too_many_operators(), nullptr;
      next();
      ExprPtr rhs = parse_and_expr();
      if (!rhs) return nullptr;
      lhs = make_logic(LogicOp::Or, lhs, rhs, start);
    }
    return lhs;
  }

  ExprPtr parse_and_expr() {
    size_t start = pos_;
    ExprPtr lhs = parse_logic_val();
    if (!lhs) return nullptr;
    for (size_t chained = 0; peek_keyword("and"); ++chained) {
      if (chained == kMaxChainedOperators) return too_many_operators(), nullptr;
      next();
      ExprPtr rhs = parse_logic_val();
      if (!rhs) return nullptr;
      lhs = make_logic(LogicOp::And, lhs, rhs, start);
    }
    return lhs;
  }

  ExprPtr make_logic(LogicOp op, ExprPtr lhs, ExprPtr rhs, size_t start) {
    auto e = arena_new<Expr>(tpl_.arena);
    e->kind = Expr::Kind::Logic;
    e->logic_op = op;
    e->lhs = lhs;
    e->rhs = rhs;
    e->span = span_from(start);
    return e;
  }

  bool at_logic_boundary() const {
    const Token& t = peek();
    if (t.kind == Tok::Close || t.kind == Tok::End) return true;
    if (t.kind == Tok::Op) return t.text == ")" || t.text == "," || t.text == "]";
    return peek_keyword("and") || peek_keyword("or");
  }

  ExprPtr parse_logic_val() {
    size_t start = pos_;
    bool negated = false;
    if (peek_keyword("not")) {
      next();
      negated = true;
    }
    // Tera 1.20: a parenthesised condition, `(a or b) and c`.
    if (peek_op("(")) {
      Mark m = mark();
      next();
      ExprPtr inner = parse_logic_expr();
      if (inner && accept_op(")") && at_logic_boundary()) {
        inner->span = span_from(start);
        if (negated) inner = negate(inner, start);
        return inner;
      }
      reset(m);
    }
    ExprPtr e = parse_in_or_comparison();
    if (!e) return nullptr;
    if (negated) e = negate(e, start);
    return e;
  }

  ExprPtr negate(ExprPtr e, size_t start) {
    if (!e->negated) {
      e->negated = true;
      e->span = span_from(start);
      return e;
    }
    // `not (not x)`: wrap so both negations count.
    auto outer = arena_new<Expr>(tpl_.arena);
    outer->kind = Expr::Kind::Logic;
    outer->logic_op = LogicOp::And;
    outer->lhs = e;
    outer->rhs = make_literal(Value(true), Span{}, false);
    outer->negated = true;
    outer->span = span_from(start);
    return outer;
  }

  // in_cond | comparison_expr
  ExprPtr parse_in_or_comparison() {
    size_t start = pos_;
    bool first_is_string = false;
    ExprPtr first = parse_string_expr_filter();
    if (first) {
      first_is_string = true;
    } else {
      if (failed_) return nullptr;
      first = parse_basic_expr_filter();
      if (!first) return nullptr;
    }
    // in_cond
    bool negated_in = false;
    if (peek_word("not") && peek_word("in", 1)) {
      pos_ += 2;
      negated_in = true;
    } else if (peek_word("in")) {
      next();
    } else {
      return parse_comparison_rest(first, first_is_string, start);
    }
    ExprPtr container = parse_in_container();
    if (!container) return nullptr;
    auto e = arena_new<Expr>(tpl_.arena);
    e->kind = Expr::Kind::In;
    e->lhs = first;
    e->rhs = container;
    e->inverted = negated_in;
    e->span = span_from(start);
    return e;
  }

  ExprPtr parse_in_container() {
    if (ExprPtr s = parse_string_expr_filter()) return s;
    if (failed_) return nullptr;
    if (peek_op("[")) return parse_array_filter();
    if (peek().kind == Tok::Path) return parse_path(next());
    expected("a string, an array or a variable after `in`");
    return nullptr;
  }

  // comparison_val (basic_op comparison_val)* [comparison_op ...]
  ExprPtr parse_comparison_rest(ExprPtr first, bool first_is_string, size_t start) {
    ExprPtr lhs = first;
    if (!first_is_string) {
      lhs = parse_math_chain(lhs, start, [this] { return parse_basic_expr_filter(); });
      if (!lhs) return nullptr;
    }
    CompareOp op;
    if (!peek_compare_op(op)) return lhs;
    next();
    size_t rhs_start = pos_;
    ExprPtr rhs = parse_string_expr_filter();
    if (!rhs) {
      if (failed_) return nullptr;
      rhs = parse_basic_expr_filter();
      if (!rhs) return nullptr;
      rhs = parse_math_chain(rhs, rhs_start, [this] { return parse_basic_expr_filter(); });
      if (!rhs) return nullptr;
    }
    auto e = arena_new<Expr>(tpl_.arena);
    e->kind = Expr::Kind::Compare;
    e->compare_op = op;
    e->lhs = lhs;
    e->rhs = rhs;
    e->span = span_from(start);
    return e;
  }

  bool peek_compare_op(CompareOp& op) const {
    const Token& t = peek();
    if (t.kind != Tok::Op) return false;
    if (t.text == "==") op = CompareOp::Eq;
    else if (t.text == "!=") op = CompareOp::NotEq;
    else if (t.text == "<") op = CompareOp::Lt;
    else if (t.text == "<=") op = CompareOp::Lte;
    else if (t.text == ">") op = CompareOp::Gt;
    else if (t.text == ">=") op = CompareOp::Gte;
    else return false;
    return true;
  }

  bool peek_math_op(MathOp& op, int& precedence) const {
    const Token& t = peek();
    if (t.kind != Tok::Op || t.text.size() != 1) return false;
    switch (t.text[0]) {
      case '+': op = MathOp::Add; precedence = 1; return true;
      case '-': op = MathOp::Sub; precedence = 1; return true;
      case '*': op = MathOp::Mul; precedence = 2; return true;
      case '/': op = MathOp::Div; precedence = 2; return true;
      case '%': op = MathOp::Mod; precedence = 2; return true;
      default: return false;
    }
  }

  // Precedence climbing over operands produced by `operand`, left-associative.
  template <class F>
  ExprPtr parse_math_chain(ExprPtr first, size_t start, F operand) {
    MathOp op;
    int prec = 0;
    if (!peek_math_op(op, prec)) return first;  // the common case: no operator, nothing to build
    std::vector<ExprPtr> operands;
    std::vector<MathOp> ops;
    operands.push_back(first);
    while (peek_math_op(op, prec)) {
      if (ops.size() == kMaxChainedOperators) return too_many_operators(), nullptr;
      next();
      ExprPtr rhs = operand();
      if (!rhs) return nullptr;
      operands.push_back(rhs);
      ops.push_back(op);
    }
    if (ops.empty()) return operands[0];
    auto precedence = [](MathOp o) { return (o == MathOp::Add || o == MathOp::Sub) ? 1 : 2; };
    // Shunting-yard for two precedence levels.
    std::vector<ExprPtr> out_stack;
    std::vector<MathOp> op_stack;
    auto reduce = [&] {
      ExprPtr r = out_stack.back();
      out_stack.pop_back();
      ExprPtr l = out_stack.back();
      out_stack.pop_back();
      auto e = arena_new<Expr>(tpl_.arena);
      e->kind = Expr::Kind::Math;
      e->math_op = op_stack.back();
      op_stack.pop_back();
      e->span = Span{l->span.offset, r->span.offset + r->span.length - l->span.offset};
      e->lhs = l;
      e->rhs = r;
      out_stack.push_back(e);
    };
    out_stack.push_back(operands[0]);
    for (size_t i = 0; i < ops.size(); ++i) {
      while (!op_stack.empty() && precedence(op_stack.back()) >= precedence(ops[i])) reduce();
      op_stack.push_back(ops[i]);
      out_stack.push_back(operands[i + 1]);
    }
    while (!op_stack.empty()) reduce();
    (void)start;
    return out_stack.back();
  }

  ExprPtr parse_basic_expr_filter() {
    size_t start = pos_;
    ExprPtr e = parse_basic_expr();
    if (!e) return nullptr;
    if (!parse_filters(e->filters)) return nullptr;
    if (!e->filters.empty()) e->span = span_from(start);
    return e;
  }

  ExprPtr parse_basic_expr() {
    DepthGuard guard(expr_depth_);
    if (expr_depth_ > kMaxExprDepth) return fail_at(peek(), "expression nested too deeply"), nullptr;
    size_t start = pos_;
    ExprPtr first = parse_basic_operand();
    if (!first) return nullptr;
    return parse_math_chain(first, start, [this] { return parse_basic_operand(); });
  }

  ExprPtr parse_basic_operand() {
    if (peek_op("(")) {
      size_t start = pos_;
      next();
      ExprPtr inner = parse_basic_expr();
      if (!inner) return nullptr;
      if (!accept_op(")")) return expected("`)`"), nullptr;
      inner->span = span_from(start);
      return inner;
    }
    return parse_basic_val();
  }

  ExprPtr make_literal(Value v, Span span, bool is_string) {
    auto e = arena_new<Expr>(tpl_.arena);
    e->kind = Expr::Kind::Literal;
    e->literal = &tpl_.literals.emplace_back(std::move(v));
    e->literal_is_string = is_string;
    e->span = span;
    return e;
  }

  ExprPtr parse_boolean() {
    const Token& t = peek();
    if (t.kind != Tok::Path || (t.text[0] != 't' && t.text[0] != 'T' && t.text[0] != 'f' && t.text[0] != 'F')) {
      return nullptr;
    }
    if (t.text == "true" || t.text == "True" || t.text == "false" || t.text == "False") {
      next();
      return make_literal(Value(t.text[0] == 't' || t.text[0] == 'T'), Span{t.offset, t.length}, false);
    }
    return nullptr;
  }

  // int | float, with an optional `-` written directly in front.
  ExprPtr parse_number() {
    size_t start = pos_;
    bool negative = false;
    if (peek_op("-") && (peek(1).kind == Tok::Int || peek(1).kind == Tok::Float) &&
        peek(1).offset == peek().offset + 1) {
      negative = true;
      next();
    }
    const Token& t = peek();
    if (t.kind != Tok::Int && t.kind != Tok::Float) {
      pos_ = start;
      return nullptr;
    }
    next();
    std::string text = (negative ? "-" : "") + std::string(t.text);
    if (t.kind == Tok::Int) {
      if (t.text.size() > 1 && t.text[0] == '0') return fail_at(t, "integers cannot start with `0`: `" + text + "`"), nullptr;
      int64_t i = 0;
      auto res = std::from_chars(text.data(), text.data() + text.size(), i);
      if (res.ec != std::errc()) return fail_at(t, "integer out of bounds: `" + text + "`"), nullptr;
      return make_literal(Value(static_cast<long>(i)), span_from(start), false);
    }
    double d = 0;
    auto res = std::from_chars(text.data(), text.data() + text.size(), d);
    if (res.ec != std::errc() || !std::isfinite(d)) return fail_at(t, "float out of bounds: `" + text + "`"), nullptr;
    return make_literal(Value(d), span_from(start), false);
  }

  // boolean | test | macro_call | fn_call | path | float | int
  ExprPtr parse_basic_val() {
    if (ExprPtr b = parse_boolean()) return b;
    if (ExprPtr n = parse_number()) return n;
    if (failed_) return nullptr;
    const Token& t = peek();
    if (t.kind != Tok::Path) {
      expected("a value (a variable, a number, a boolean or a function call)");
      return nullptr;
    }
    if (peek_op("::", 1)) return parse_macro_call();
    if (peek_op("(", 1)) return parse_function_call();
    next();
    if (peek_word("is")) return parse_test(t);
    return parse_path(t);
  }

  ExprPtr parse_macro_call() {
    size_t start = pos_;
    const Token& ns = next();
    if (!ns.plain_ident) return fail_at(ns, "expected a macro namespace"), nullptr;
    next();  // ::
    if (!is_ident(peek())) return expected("a macro name"), nullptr;
    auto e = arena_new<Expr>(tpl_.arena);
    e->kind = Expr::Kind::MacroCall;
    e->space = ns.text;
    e->name = next().text;
    if (!accept_op("(")) return expected("`(`"), nullptr;
    if (!parse_kwargs(e->args)) return nullptr;
    e->span = span_from(start);
    return e;
  }

  ExprPtr parse_function_call() {
    size_t start = pos_;
    const Token& name = next();
    if (!name.plain_ident) return fail_at(name, "expected a function name"), nullptr;
    next();  // (
    auto e = arena_new<Expr>(tpl_.arena);
    e->kind = Expr::Kind::Call;
    e->name = name.text;
    e->function_def = find_function(e->name);
    if (!parse_kwargs(e->args)) return nullptr;
    e->span = span_from(start);
    return e;
  }

  // After `(`: `name=value, ...)`; positional arguments are errors, as in Tera.
  bool parse_kwargs(AstList<NamedArg>& args) {
    while (!peek_op(")")) {
      if (!is_ident(peek()) || !peek_op("=", 1)) {
        return expected("a keyword argument `name=value`");
      }
      NamedArg arg;
      arg.name = next().text;
      next();  // =
      arg.value = parse_value_expr();
      if (!arg.value) return false;
      args.push_back(arg);
      if (!accept_op(",")) break;
    }
    if (!accept_op(")")) return expected("`,` or `)`");
    return true;
  }

  bool parse_filter_call(FilterCall& f) {
    const Token& name = peek();
    if (!is_ident(name)) return expected("a filter name");
    next();
    f.name = name.text;
    f.def = find_filter(f.name);
    if (accept_op("(")) {
      if (!parse_kwargs(f.args)) return false;
    }
    f.span = Span{name.offset, tokens_[pos_ - 1].offset + tokens_[pos_ - 1].length - name.offset};
    return true;
  }

  bool parse_filters(AstList<FilterCall>& filters) {
    while (accept_op("|")) {
      FilterCall f;
      if (!parse_filter_call(f)) return false;
      filters.push_back(f);
    }
    return true;
  }

  ExprPtr parse_test(const Token& subject) {
    size_t start = pos_ - 1;
    next();  // is
    auto e = arena_new<Expr>(tpl_.arena);
    e->kind = Expr::Kind::Test;
    if (subject.text.find('[') != std::string_view::npos) {
      return fail_at(subject, "tests can only be applied to a variable written with dots, not brackets"), nullptr;
    }
    ExprPtr path = parse_path(subject);
    if (!path) return nullptr;
    e->lhs = path;
    if (peek_word("not")) {
      next();
      e->inverted = true;
    }
    if (!is_ident(peek())) return expected("a test name"), nullptr;
    e->name = next().text;
    e->test_def = find_test(e->name);
    if (accept_op("(")) {
      while (true) {
        ExprPtr arg = parse_value_expr();
        if (!arg) return nullptr;
        e->items.push_back(arg);
        if (!accept_op(",")) break;
      }
      if (!accept_op(")")) return expected("`,` or `)`"), nullptr;
    }
    e->span = span_from(start);
    return e;
  }

  // A path token such as `a.b[0]["k"][c.d]` into root and segments.
  ExprPtr parse_path(const Token& t) {
    auto e = arena_new<Expr>(tpl_.arena);
    e->kind = Expr::Kind::Path;
    e->span = Span{t.offset, t.length};
    e->dotted = t.text;
    if (t.plain_ident) {
      e->root = t.text;
      e->root_key = KeyProbe(e->root);
      return e;
    }
    std::string_view s = t.text;
    size_t i = 0;
    if (!split_path(s, i, *e, t)) return nullptr;
    return e;
  }

  bool split_path(std::string_view s, size_t& i, Expr& e, const Token& t) {
    auto ident_end = [&](size_t from) {
      while (from < s.size() && is_ident_char(s[from])) ++from;
      return from;
    };
    size_t end = ident_end(i);
    e.root = s.substr(i, end - i);
    e.root_key = KeyProbe(e.root);
    i = end;
    while (i < s.size()) {
      if (s[i] == '.') {
        size_t seg_end = ident_end(i + 1);
        e.segments.push_back(PathSegment{KeyProbe(s.substr(i + 1, seg_end - i - 1)), nullptr, true});
        i = seg_end;
      } else if (s[i] == '[') {
        ++i;
        if (s[i] == '"' || s[i] == '\'' || s[i] == '`') {
          size_t close = s.find(s[i], i + 1);
          e.segments.push_back(PathSegment{KeyProbe(s.substr(i + 1, close - i - 1)), nullptr});
          i = close + 1;
        } else if (s[i] == '-' || (s[i] >= '0' && s[i] <= '9')) {
          size_t num_end = i + 1;
          while (num_end < s.size() && s[num_end] >= '0' && s[num_end] <= '9') ++num_end;
          e.segments.push_back(PathSegment{KeyProbe(s.substr(i, num_end - i)), nullptr});
          i = num_end;
        } else {
          auto inner = arena_new<Expr>(tpl_.arena);
          inner->kind = Expr::Kind::Path;
          size_t inner_start = i;
          if (!split_path(s, i, *inner, t)) return false;
          inner->dotted = s.substr(inner_start, i - inner_start);
          inner->span = Span{static_cast<uint32_t>(t.offset + inner_start), static_cast<uint32_t>(i - inner_start)};
          e.segments.push_back(PathSegment{KeyProbe(), inner});
          e.dynamic_segments = true;
        }
        ++i;  // ]
      } else {
        return true;  // `]` of an enclosing bracket
      }
    }
    return true;
  }

  // string_concat | string, then filters. When the input is neither it
  // returns null without consuming anything or recording an error.
  ExprPtr parse_string_expr_filter() {
    size_t start = pos_;
    bool first_is_string = peek().kind == Tok::String;
    if (!first_is_string && !concat_follows()) return nullptr;
    std::vector<ExprPtr> parts;
    ExprPtr first = parse_concat_operand();
    if (!first) {
      pos_ = start;
      return nullptr;
    }
    parts.push_back(first);
    while (accept_op("~")) {
      ExprPtr part = parse_concat_operand();
      if (!part) {
        if (!failed_) expected("a string, a number, a variable or a function call after `~`");
        return nullptr;
      }
      parts.push_back(part);
    }
    if (parts.size() == 1 && !first_is_string) {
      pos_ = start;
      return nullptr;
    }
    ExprPtr e;
    if (parts.size() == 1) {
      e = parts[0];
    } else {
      e = arena_new<Expr>(tpl_.arena);
      e->kind = Expr::Kind::Concat;
      // Adjacent string literals are joined, as Tera's parser does.
      for (ExprPtr& p : parts) {
        if (p->kind == Expr::Kind::Literal && p->literal_is_string && !e->items.empty() &&
            e->items.back()->kind == Expr::Kind::Literal && e->items.back()->literal_is_string) {
          std::string joined(e->items.back()->literal->get_string());
          joined += p->literal->get_string();
          e->items.back()->literal = &tpl_.literals.emplace_back(joined);
        } else {
          e->items.push_back(p);
        }
      }
      if (e->items.size() == 1) e = e->items[0];
    }
    if (!parse_filters(e->filters)) return nullptr;
    e->span = span_from(start);
    return e;
  }

  // Whether the operand at the cursor is followed by `~`, found without
  // building anything: most expressions are not concatenations.
  bool concat_follows() const {
    size_t i = pos_;
    auto at = [&](size_t k) -> const Token& { return k < tokens_.size() ? tokens_[k] : tokens_.back(); };
    if (at(i).kind == Tok::Op && at(i).text == "-") ++i;
    const Token& t = at(i);
    if (t.kind == Tok::Int || t.kind == Tok::Float) {
      ++i;
    } else if (t.kind == Tok::Path) {
      ++i;
      if (at(i).kind == Tok::Op && at(i).text == "(") {
        int depth = 0;
        for (; i < tokens_.size(); ++i) {
          const Token& k = tokens_[i];
          if (k.kind == Tok::Close || k.kind == Tok::End) return false;
          if (k.kind == Tok::Op && k.text == "(") ++depth;
          if (k.kind == Tok::Op && k.text == ")" && --depth == 0) break;
        }
        ++i;
      }
    } else {
      return false;
    }
    return at(i).kind == Tok::Op && at(i).text == "~";
  }

  // fn_call | float | int | string | path. Tera's grammar has no booleans
  // here: `"a" ~ true` reads a variable named `true`.
  ExprPtr parse_concat_operand() {
    const Token& t = peek();
    if (t.kind == Tok::String) {
      next();
      return make_literal(Value(t.text), Span{t.offset, t.length}, true);
    }
    if (t.kind == Tok::Path) {
      if (peek_op("(", 1)) return parse_function_call();
      if (peek_op("::", 1) || peek_word("is", 1)) return nullptr;
      next();
      return parse_path(t);
    }
    return parse_number();
  }

  ExprPtr parse_array_filter() {
    size_t start = pos_;
    ExprPtr e = parse_array();
    if (!e) return nullptr;
    if (!parse_filters(e->filters)) return nullptr;
    e->span = span_from(start);
    return e;
  }

  ExprPtr parse_array() {
    DepthGuard guard(expr_depth_);
    if (expr_depth_ > kMaxExprDepth) return fail_at(peek(), "expression nested too deeply"), nullptr;
    size_t start = pos_;
    next();  // [
    auto e = arena_new<Expr>(tpl_.arena);
    e->kind = Expr::Kind::Array;
    while (!peek_op("]")) {
      ExprPtr item = parse_logic_val();
      if (!item) return nullptr;
      e->items.push_back(item);
      if (!accept_op(",")) break;
    }
    if (!accept_op("]")) return expected("`,` or `]`"), nullptr;
    e->span = span_from(start);
    return e;
  }

  Template& tpl_;
  std::vector<Token> tokens_;
  size_t end_;  // the index of the End token; the cursor never passes it
  size_t pos_ = 0;
  size_t depth_ = 0;
  size_t expr_depth_ = 0;
  // Above 0 inside an `if` or a filter section. Tera registers only the
  // blocks at the top level and inside other blocks: one written in an `if`
  // renders (a child's block of its name replacing it), but it is no
  // definition of its own: super() never reaches it, and it duplicates none.
  size_t unregistered_blocks_ = 0;
  // Above 0 in a block's or a macro's body.
  size_t inside_blocks_and_macros_ = 0;
  bool failed_ = false;
  Span error_span_;
  std::string error_message_;
};

}  // namespace

TemplateError Template::error_at(ErrorKind kind, Span span, std::string message, std::string expression) const {
  TemplateError e;
  e.kind = kind;
  e.template_name = name;
  LineColumn lc = line_column(source, span.offset);
  e.location = Location{lc.line, lc.column};
  e.message = std::move(message);
  e.expression = std::move(expression);
  return e;
}

Arena*& parse_arena() {
  thread_local Arena* arena = nullptr;
  return arena;
}

Result<Ok, TemplateError> parse_template(Template& tpl) {
  // The tree takes a few bytes per byte of template; start near that.
  tpl.arena.reserve(tpl.source.size() * 4 + 4096);
  ParseArenaScope scope(tpl.arena);
  LexResult lexed = lex(tpl.source);
  if (!lexed.ok) return tpl.error_at(ErrorKind::Parse, Span{lexed.error.offset, 0}, lexed.error.message);
  Parser parser(tpl, std::move(lexed.tokens));
  if (!parser.parse(tpl.ast)) return parser.error();
  remove_whitespace(tpl.ast, nullptr);
  resolve_scopes(tpl);
  return Ok{};
}

}  // namespace sindri::tera
