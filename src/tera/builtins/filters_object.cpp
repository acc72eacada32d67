// Filters on objects (Tera's builtins/filters/object.rs).

#include "tera/builtins/internal.hpp"

namespace sindri::tera::builtins {

Result<Value> f_get(const Value& input, const Args& args, Budget& budget) {
  const Value* def = args.find("default");
  const Value* key = args.find("key");
  if (!key) return Error{"The `get` filter has to have an `key` argument"};
  if (!key->is_string()) return incorrect_arg("get", "key", *key, "String");
  if (!budget.charge(key->get_string().size())) return Budget::stopped();
  if (!input.is_object()) return Error{"Filter `get` was used on a value that isn't an object"};
  if (const Value* v = input.find(key->get_string())) return *v;
  if (def) return *def;
  std::string m = "Filter `get` tried to get key `";
  m.append(key->get_string()).append("` but it wasn't found");
  return Error{std::move(m)};
}

}  // namespace sindri::tera::builtins
