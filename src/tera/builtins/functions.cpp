// Global functions (Tera's builtins/functions.rs).

#include <cstdlib>
#include <random>

#include "tera/builtins/internal.hpp"

namespace sindri::tera::builtins {

namespace {

Error fn_error(std::string_view fn, std::string_view arg, const Value& v, std::string_view what) {
  std::string m = "Function `";
  m.append(fn).append("` received ").append(arg).append("=").append(display(v));
  m.append(" but `").append(arg == "step_by" ? "step" : arg).append("` can only be ").append(what);
  return Error{std::move(m)};
}

}  // namespace

Result<Value> fn_range(const Args& args, Budget& budget) {
  uint64_t start = 0, step = 1, end;
  if (const Value* v = args.find("start")) {
    if (!as_usize(*v, start)) return fn_error("range", "start", *v, "a number");
  }
  if (const Value* v = args.find("step_by")) {
    if (!as_usize(*v, step)) return fn_error("range", "step_by", *v, "a number");
  }
  const Value* e = args.find("end");
  if (!e) return Error{"Function `range` was called without a `end` argument"};
  if (!as_usize(*e, end)) return fn_error("range", "end", *e, "a number");
  if (start > end) {
    return Error{"Function `range` was called with a `start` argument greater than the `end` one"};
  }
  // Tera loops forever on step_by=0; refuse instead.
  if (step == 0 && start < end) return Error{"Function `range` was called with a `step_by` argument of 0"};
  // Tera would try to build any size: the list is bounded as any other a
  // template builds, before it is allocated.
  const uint64_t count = start < end ? (end - start - 1) / step + 1 : 0;
  if (!budget.fits_list(count) || !budget.charge(count)) return Budget::stopped();
  Array out;
  out.reserve(static_cast<size_t>(count));
  for (uint64_t i = start; i < end; i += step) {
    out.emplace_back(static_cast<int64_t>(i));
    if (end - i <= step) break;
  }
  return Value(std::move(out));
}

Result<Value> fn_throw(const Args& args, Budget&) {
  const Value* m = args.find("message");
  if (!m) return Error{"Function `throw` was called without a `message` argument"};
  if (!m->is_string()) return fn_error("throw", "message", *m, "a string");
  return Error{std::string(m->get_string())};
}

Result<Value> fn_get_random(const Args& args, Budget&) {
  int64_t start = 0, end;
  if (const Value* v = args.find("start")) {
    if (!v->is_int()) return fn_error("get_random", "start", *v, "a number");
    start = v->get_int();
  }
  const Value* e = args.find("end");
  if (!e) return Error{"Function `get_random` didn't receive an `end` argument"};
  if (!e->is_int()) return fn_error("get_random", "end", *e, "a number");
  end = e->get_int();
  // rand's gen_range panics on an empty range.
  if (start >= end) return Error{"cannot sample empty range"};
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_int_distribution<int64_t> dist(start, end - 1);
  return Value(dist(rng));
}

Result<Value> fn_get_env(const Args& args, Budget&) {
  const Value* n = args.find("name");
  if (!n) return Error{"Function `get_env` didn't receive a `name` argument"};
  if (!n->is_string()) return fn_error("get_env", "name", *n, "a string");
  std::string name(n->get_string());
  if (const char* v = std::getenv(name.c_str())) return Value(std::string_view(v));
  if (const Value* d = args.find("default")) return *d;
  return Error{"Environment variable `" + name + "` not found"};
}

}  // namespace sindri::tera::builtins
