// Expressions: values, filters, functions, tests, comparisons and arithmetic.

#include "tera/renderer/renderer.hpp"

namespace sindri::tera::rendering {

bool Renderer::eval_args(const AstList<NamedArg>& args) {
  for (const NamedArg& a : args) {
    Value v;
    if (!eval(*a.value, v)) return false;
    arg_stack_.push_back(Arg{a.name, std::move(v)});
  }
  return true;
}

bool Renderer::apply_filter(const FilterCall& f, Value& value) {
  if (!f.def) return fail(f.span, "Filter '" + std::string(f.name) + "' not found");
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

bool Renderer::apply_filters(const Expr& e, size_t count, Value& value) {
  for (size_t i = 0; i < count; ++i) {
    const FilterCall& f = e.filters[i];
    if (f.name == "safe" || f.name == "default") continue;
    if (!apply_filter(f, value)) return false;
  }
  return true;
}

bool Renderer::default_value(const Expr& e, Value& out) {
  for (const NamedArg& a : e.filters[0].args) {
    if (a.name == "value") return eval(*a.value, out);
  }
  return fail(e.filters[0].span, "The `default` filter requires a `value` argument.");
}

bool Renderer::call_function(const Expr& e, Value& out) {
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

bool Renderer::eval_concat(const Expr& e, Value& out) {
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

bool Renderer::eval_unfiltered(const Expr& e, Value& out, bool& settled) {
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

bool Renderer::eval_bool(const Expr& e, bool& out) {
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
    case Expr::Kind::Concat: {
      Value v;
      if (!eval(e, v)) return false;
      // Tera reads a condition's concatenation as a string and panics when
      // a filter or `not` made it something else (`a ~ b | length`,
      // `not a ~ b`): an error here.
      if (!v.is_string()) {
        return fail(e.span, std::string("A condition's concatenation must give a string, got ") + v.kind_name());
      }
      res = !v.get_string().empty();
      break;
    }
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

void Renderer::restore(const Snapshot& s) {
  if (!spent()) failed_ = s.failed;
}

bool Renderer::eval_compare(const Expr& e, bool& res, bool& mixed_kinds) {
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

bool Renderer::eval_number(const Expr& e, Value& out, bool& nan) {
  if (!e.filters.empty()) {
    if (!eval(e, out)) return false;
    if (!out.is_number()) return fail(e.span, "Tried to do math with an expression not resulting in a number");
    nan = false;
    return true;
  }
  return eval_number_plain(e, out, nan);
}

bool Renderer::eval_number_plain(const Expr& e, Value& out, bool& nan) {
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

bool Renderer::eval_math(const Expr& e, Value& out, bool& nan) {
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

bool Renderer::eval_in(const Expr& e, bool& out) {
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

bool Renderer::eval_test(const Expr& e, bool& out) {
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

}  // namespace sindri::tera::rendering
