// validate, apply_defaults and check_schema over CompiledSchemaData.
//
// Evaluation walks nodes and the instance together. Instance locations are a
// chain of stack frames turned into a JSON pointer only when a violation is
// reported; when no violations are wanted (inside not/anyOf/oneOf/if) the
// walk stops at the first failure.

#include <algorithm>
#include <cmath>
#include <compare>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "value/pointer.hpp"
#include "schema/internal.hpp"
#include "value/json.hpp"

namespace sindri::schema {

namespace {

// Nesting of schemas that do not descend into the instance (a `$ref` to
// itself, say) beyond this is a cycle.
constexpr int kMaxInPlaceDepth = 256;

struct InstancePath {
  const InstancePath* parent = nullptr;
  std::string_view key;
  size_t index = 0;
  bool is_index = false;
};

std::string pointer_of(const InstancePath* path) {
  std::vector<const InstancePath*> chain;
  for (; path && path->parent; path = path->parent) chain.push_back(path);
  std::string out;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    out += '/';
    if ((*it)->is_index) {
      out += std::to_string((*it)->index);
      continue;
    }
    append_pointer_token(out, (*it)->key);
  }
  return out;
}

constexpr size_t kShownLength = 80;

// Appends the JSON text of `v`, arrays and objects only until the text is
// past kShownLength. A large value can be refused once per keyword at every
// level of a recursive schema: writing 1.3 MB whole each time took 33 s.
void append_shown(std::string& out, const Value& v) {
  if (v.is_array()) {
    out += '[';
    for (const Value& item : v.get_array()) {
      if (out.size() > kShownLength) return;
      if (&item != &v.get_array().front()) out += ',';
      append_shown(out, item);
    }
    out += ']';
  } else if (v.is_object()) {
    out += '{';
    for (const Member& m : v.get_object()) {
      if (out.size() > kShownLength) return;
      if (&m != &v.get_object().front()) out += ',';
      append_json_string(out, m.key.get_string());
      out += ':';
      append_shown(out, m.value);
    }
    out += '}';
  } else {
    append_json(out, v);
  }
}

// The JSON text of `v`, cut to kShownLength characters.
std::string show(const Value& v) {
  std::string text;
  append_shown(text, v);
  if (text.size() > kShownLength) text = text.substr(0, kShownLength - 3) + "...";
  return text;
}

std::string show_number(const Value& v) { return to_json(v); }

const char* type_name(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Null: return "null";
    case Value::Kind::Bool: return "boolean";
    case Value::Kind::Int: return "integer";
    case Value::Kind::Float: return "number";
    case Value::Kind::String: return "string";
    case Value::Kind::Array: return "array";
    case Value::Kind::Object: return "object";
  }
  return "value";
}

std::string type_list(uint8_t mask) {
  static const char* kNames[] = {"null", "boolean", "integer", "number", "string", "array", "object"};
  std::string out;
  int count = 0;
  for (int i = 0; i < 7; ++i) {
    if (!(mask & (1 << i))) continue;
    if (count++) out += " or ";
    out += kNames[i];
  }
  return out;
}

size_t code_points(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// Which properties / items of one object or array some successful
// subschema looked at, for unevaluatedProperties / unevaluatedItems.
struct Evaluated {
  std::vector<bool> members;  // by index into the object's members
  std::vector<bool> items;
  void merge(const Evaluated& other) {
    for (size_t i = 0; i < other.members.size() && i < members.size(); ++i) members[i] = members[i] || other.members[i];
    for (size_t i = 0; i < other.items.size() && i < items.size(); ++i) items[i] = items[i] || other.items[i];
  }
};

Evaluated fresh_for(const Value& instance) {
  Evaluated e;
  if (instance.is_object()) e.members.assign(instance.size(), false);
  if (instance.is_array()) e.items.assign(instance.size(), false);
  return e;
}

// -1, 0 or 1 by mathematical value; a NaN (YAML's .nan) counts as 0, equal
// to the limit: inclusive limits take it, exclusive ones refuse it.
int compare_to_limit(const Value& instance, const Value& limit) {
  const std::partial_ordering order = compare_numbers(instance, limit);
  return order < 0 ? -1 : order > 0 ? 1 : 0;
}

// The integer a number holds exactly, if it is one within int64.
std::optional<int64_t> exact_integer(const Value& v) {
  if (v.is_int()) return v.get_int();
  const double d = v.get_float();
  if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 && std::trunc(d) == d) return static_cast<int64_t>(d);
  return std::nullopt;
}

// `m` is greater than 0 (compile_schema checks).
bool is_multiple(const Value& x, const Value& m) {
  // Integers, 2.0 included, by remainder: through doubles 2^53 + 1 would
  // be a multiple of 2.
  if (const auto xi = exact_integer(x), mi = exact_integer(m); xi && mi) return *xi % *mi == 0;
  double q = x.as_double() / m.as_double();
  if (!std::isfinite(q)) return false;
  // The tolerance is for rounding errors (0.3 / 0.1 is 2.9999999999999996);
  // a number closer to 0 than to m is a multiple only if it is 0, or
  // multipleOf 1e10 would accept 1.
  if (std::round(q) == 0) return x.as_double() == 0;
  return std::fabs(q - std::round(q)) <= 1e-9 * std::max(1.0, std::fabs(q));
}

class Validator {
 public:
  Validator(const CompiledSchemaData& data, const ValidateOptions& options) : data_(data), options_(options) {}

  // Whether a violation was left out of a list ValidateOptions::max_violations filled.
  bool truncated() const { return truncated_; }

  // True if `instance` is valid against `id`. With `out`, every violation
  // is appended; without, the walk stops at the first. With `evaluated`,
  // the properties/items this node evaluated are marked.
  bool eval(NodeId id, const Value& instance, const InstancePath* path, std::vector<Violation>* out,
            Evaluated* evaluated) {
    // Once the list is full the rest of the walk only needs to fail.
    if (out && full(*out)) {
      const bool valid = eval(id, instance, path, nullptr, evaluated);
      truncated_ = truncated_ || !valid;
      return valid;
    }
    const Node& node = data_.nodes[id];
    if (node.rejects_all) {
      if (out) report(out, path, node.location, "no value is allowed here");
      return false;
    }
    if (++depth_ > kMaxInPlaceDepth) {
      --depth_;
      if (out) report(out, path, node.location, "the schema recurses without end here");
      return false;
    }
    Evaluated local;
    if (node.tracks_evaluated) {
      local = fresh_for(instance);
    }
    Evaluated* tracker = node.tracks_evaluated ? &local : evaluated;
    bool valid = true;
    for (const Keyword& k : node.keywords) {
      if (!check(k, instance, path, out, tracker)) {
        valid = false;
        if (!out) break;
      }
    }
    if (node.tracks_evaluated && evaluated && valid) evaluated->merge(local);
    --depth_;
    return valid;
  }

 private:
  bool full(const std::vector<Violation>& out) const {
    return options_.max_violations != 0 && out.size() >= options_.max_violations;
  }

  void report(std::vector<Violation>* out, const InstancePath* path, const std::string& location, std::string message) {
    if (full(*out)) {
      truncated_ = true;
      return;
    }
    out->push_back(Violation{pointer_of(path), location, std::move(message)});
  }

  // Evaluates a child that descends into the instance, resetting the
  // in-place depth.
  bool eval_child(NodeId id, const Value& child, const InstancePath* path, std::vector<Violation>* out) {
    int saved = depth_;
    depth_ = 0;
    bool ok = eval(id, child, path, out, nullptr);
    depth_ = saved;
    return ok;
  }

  // A branch of an applicator whose annotations count only if it passes.
  bool eval_branch(NodeId id, const Value& instance, const InstancePath* path, std::vector<Violation>* out,
                   Evaluated* evaluated) {
    if (!evaluated) return eval(id, instance, path, out, nullptr);
    Evaluated branch = fresh_for(instance);
    bool ok = eval(id, instance, path, out, &branch);
    if (ok) evaluated->merge(branch);
    return ok;
  }

  bool fail(std::vector<Violation>* out, const InstancePath* path, const Keyword& k, std::string message) {
    if (out) report(out, path, k.location, std::move(message));
    return false;
  }

  bool check(const Keyword& k, const Value& instance, const InstancePath* path, std::vector<Violation>* out,
             Evaluated* evaluated) {
    switch (k.kind) {
      case KeywordKind::Ref: return eval(k.node, instance, path, out, evaluated);
      case KeywordKind::Type:
      case KeywordKind::Enum:
      case KeywordKind::Const:
        return check_any_type(k, instance, path, out);
      case KeywordKind::MultipleOf:
      case KeywordKind::Maximum:
      case KeywordKind::ExclusiveMaximum:
      case KeywordKind::Minimum:
      case KeywordKind::ExclusiveMinimum:
        return check_numeric(k, instance, path, out);
      case KeywordKind::MaxLength:
      case KeywordKind::MinLength:
      case KeywordKind::Pattern:
      case KeywordKind::Format:
        return check_string(k, instance, path, out);
      case KeywordKind::Items:
      case KeywordKind::Contains:
      case KeywordKind::MaxItems:
      case KeywordKind::MinItems:
      case KeywordKind::UniqueItems:
        return check_array(k, instance, path, out, evaluated);
      case KeywordKind::Properties:
      case KeywordKind::Required:
      case KeywordKind::MaxProperties:
      case KeywordKind::MinProperties:
      case KeywordKind::PropertyNames:
      case KeywordKind::Dependencies:
        return check_object(k, instance, path, out, evaluated);
      case KeywordKind::AllOf:
      case KeywordKind::AnyOf:
      case KeywordKind::OneOf:
      case KeywordKind::Not:
      case KeywordKind::IfThenElse:
        return check_applicator(k, instance, path, out, evaluated);
      case KeywordKind::UnevaluatedItems:
      case KeywordKind::UnevaluatedProperties:
        return check_unevaluated(k, instance, path, out, evaluated);
    }
    return true;
  }

  bool check_any_type(const Keyword& k, const Value& instance, const InstancePath* path, std::vector<Violation>* out) {
    switch (k.kind) {
      case KeywordKind::Type: {
        uint8_t bit = 0;
        switch (instance.kind()) {
          case Value::Kind::Null: bit = kNullType; break;
          case Value::Kind::Bool: bit = kBooleanType; break;
          case Value::Kind::Int: bit = kIntegerType | kNumberType; break;
          case Value::Kind::Float: {
            double d = instance.get_float();
            // Draft 4 calls 1.0 a number only; a float beyond int64 was an
            // integer literal too big to keep exact, so it stays an integer.
            bool integral = std::isfinite(d) && std::floor(d) == d &&
                            (data_.draft != Draft::Draft4 || std::fabs(d) >= 9.2e18);
            bit = integral ? kIntegerType | kNumberType : kNumberType;
            break;
          }
          case Value::Kind::String: bit = kStringType; break;
          case Value::Kind::Array: bit = kArrayType; break;
          case Value::Kind::Object: bit = kObjectType; break;
        }
        if (k.types & bit) return true;
        if (!out) return false;
        return fail(out, path, k, "must be " + type_list(k.types) + ", got " + type_name(instance));
      }
      case KeywordKind::Enum: {
        for (const Value& v : k.values) {
          if (json_equal(v, instance)) return true;
        }
        if (!out) return false;
        std::string list;
        for (size_t i = 0; i < k.values.size() && i < 10; ++i) list += (i ? ", " : "") + show(k.values[i]);
        if (k.values.size() > 10) list += ", ...";
        if (!out) return false;
        return fail(out, path, k, "must be one of " + list + ", got " + show(instance));
      }
      case KeywordKind::Const:
        if (json_equal(k.value, instance)) return true;
        if (!out) return false;
        return fail(out, path, k, "must be " + show(k.value) + ", got " + show(instance));
      default: return true;
    }
  }

  bool check_numeric(const Keyword& k, const Value& instance, const InstancePath* path, std::vector<Violation>* out) {
    switch (k.kind) {
      case KeywordKind::MultipleOf:
        if (!instance.is_number() || is_multiple(instance, k.value)) return true;
        if (!out) return false;
        return fail(out, path, k, "must be a multiple of " + show_number(k.value) + ", got " + show_number(instance));
      case KeywordKind::Maximum:
        if (!instance.is_number() || compare_to_limit(instance, k.value) <= 0) return true;
        if (!out) return false;
        return fail(out, path, k, "must be at most " + show_number(k.value) + ", got " + show_number(instance));
      case KeywordKind::ExclusiveMaximum:
        if (!instance.is_number() || compare_to_limit(instance, k.value) < 0) return true;
        if (!out) return false;
        return fail(out, path, k, "must be less than " + show_number(k.value) + ", got " + show_number(instance));
      case KeywordKind::Minimum:
        if (!instance.is_number() || compare_to_limit(instance, k.value) >= 0) return true;
        if (!out) return false;
        return fail(out, path, k, "must be at least " + show_number(k.value) + ", got " + show_number(instance));
      case KeywordKind::ExclusiveMinimum:
        if (!instance.is_number() || compare_to_limit(instance, k.value) > 0) return true;
        if (!out) return false;
        return fail(out, path, k, "must be greater than " + show_number(k.value) + ", got " + show_number(instance));
      default: return true;
    }
  }

  bool check_string(const Keyword& k, const Value& instance, const InstancePath* path, std::vector<Violation>* out) {
    switch (k.kind) {
      case KeywordKind::MaxLength: {
        if (!instance.is_string()) return true;
        size_t n = code_points(instance.get_string());
        if (n <= k.count) return true;
        if (!out) return false;
        return fail(out, path, k, "must be at most " + std::to_string(k.count) + " characters long, got " + std::to_string(n));
      }
      case KeywordKind::MinLength: {
        if (!instance.is_string()) return true;
        size_t n = code_points(instance.get_string());
        if (n >= k.count) return true;
        if (!out) return false;
        return fail(out, path, k, "must be at least " + std::to_string(k.count) + " characters long, got " + std::to_string(n));
      }
      case KeywordKind::Pattern:
        if (!instance.is_string() || k.regex->search(instance.get_string())) return true;
        if (!out) return false;
        return fail(out, path, k, "must match the pattern " + show(k.value) + ", got " + show(instance));
      case KeywordKind::Format:
        if (!options_.check_formats || !instance.is_string() || check_format(k.format, instance.get_string())) return true;
        if (!out) return false;
        return fail(out, path, k, "must be a valid " + k.name + ", got " + show(instance));
      default: return true;
    }
  }

  bool check_array(const Keyword& k, const Value& instance, const InstancePath* path, std::vector<Violation>* out,
                   Evaluated* evaluated) {
    switch (k.kind) {
      case KeywordKind::Items: return check_items(k, instance, path, out, evaluated);
      case KeywordKind::Contains: return check_contains(k, instance, path, out, evaluated);
      case KeywordKind::MaxItems:
        if (!instance.is_array() || instance.size() <= k.count) return true;
        if (!out) return false;
        return fail(out, path, k, "must have at most " + std::to_string(k.count) + " items, got " + std::to_string(instance.size()));
      case KeywordKind::MinItems:
        if (!instance.is_array() || instance.size() >= k.count) return true;
        if (!out) return false;
        return fail(out, path, k, "must have at least " + std::to_string(k.count) + " items, got " + std::to_string(instance.size()));
      case KeywordKind::UniqueItems: return check_unique_items(k, instance, path, out);
      default: return true;
    }
  }

  bool check_object(const Keyword& k, const Value& instance, const InstancePath* path, std::vector<Violation>* out,
                    Evaluated* evaluated) {
    switch (k.kind) {
      case KeywordKind::Properties: return check_properties(k, instance, path, out, evaluated);
      case KeywordKind::Required: {
        if (!instance.is_object()) return true;
        bool ok = true;
        for (const std::string& name : k.names) {
          if (instance.find(name)) continue;
          ok = false;
          if (!out) return false;
          report(out, path, k.location, "missing required property `" + name + "`");
        }
        return ok;
      }
      case KeywordKind::MaxProperties:
        if (!instance.is_object() || instance.size() <= k.count) return true;
        if (!out) return false;
        return fail(out, path, k, "must have at most " + std::to_string(k.count) + " properties, got " + std::to_string(instance.size()));
      case KeywordKind::MinProperties:
        if (!instance.is_object() || instance.size() >= k.count) return true;
        if (!out) return false;
        return fail(out, path, k, "must have at least " + std::to_string(k.count) + " properties, got " + std::to_string(instance.size()));
      case KeywordKind::PropertyNames: {
        if (!instance.is_object()) return true;
        bool ok = true;
        for (const Member& m : instance.get_object()) {
          InstancePath child{path, m.key.get_string()};
          // The names' violations are gathered apart, to be prefixed, so
          // the cap is applied here.
          const bool listing = out && !full(*out);
          std::vector<Violation> inner;
          if (eval_child(k.node, m.key, &child, listing ? &inner : nullptr)) continue;
          ok = false;
          if (!listing) {
            if (out) truncated_ = true;
            return false;
          }
          for (Violation& v : inner) {
            if (full(*out)) {
              truncated_ = true;
              break;
            }
            v.message = "property name `" + std::string(m.key.get_string()) + "` " + v.message;
            out->push_back(std::move(v));
          }
        }
        return ok;
      }
      case KeywordKind::Dependencies: {
        if (!instance.is_object()) return true;
        bool ok = true;
        for (const DependencyRule& rule : k.dependencies) {
          if (!instance.find(rule.property)) continue;
          for (const std::string& name : rule.required) {
            if (instance.find(name)) continue;
            ok = false;
            if (!out) return false;
            report(out, path, rule.required_location,
                   "missing property `" + name + "`, required when `" + rule.property + "` is present");
          }
          if (rule.schema != kNoNode && !eval_branch(rule.schema, instance, path, out, evaluated)) {
            ok = false;
            if (!out) return false;
          }
        }
        return ok;
      }
      default: return true;
    }
  }

  bool check_applicator(const Keyword& k, const Value& instance, const InstancePath* path, std::vector<Violation>* out,
                        Evaluated* evaluated) {
    switch (k.kind) {
      case KeywordKind::AllOf: {
        bool ok = true;
        for (NodeId branch : k.nodes) {
          if (!eval_branch(branch, instance, path, out, evaluated)) {
            ok = false;
            if (!out) return false;
          }
        }
        return ok;
      }
      case KeywordKind::AnyOf: {
        bool any = false;
        for (NodeId branch : k.nodes) {
          if (eval_branch(branch, instance, path, nullptr, evaluated)) {
            any = true;
            if (!evaluated) break;  // the remaining branches only add annotations
          }
        }
        if (any) return true;
        if (!out) return false;
        return fail(out, path, k, "must match at least one of the " + std::to_string(k.nodes.size()) + " schemas in anyOf");
      }
      case KeywordKind::OneOf: {
        std::vector<size_t> matched;
        for (size_t i = 0; i < k.nodes.size(); ++i) {
          if (eval_branch(k.nodes[i], instance, path, nullptr, evaluated)) {
            matched.push_back(i);
            if (matched.size() == 2 && !out) return false;
          }
        }
        if (matched.size() == 1) return true;
        if (matched.empty()) {
          if (!out) return false;
          return fail(out, path, k, "must match exactly one of the " + std::to_string(k.nodes.size()) +
                                        " schemas in oneOf, matched none");
        }
        std::string which;
        for (size_t i = 0; i < matched.size(); ++i) which += (i ? ", " : "") + std::to_string(matched[i]);
        if (!out) return false;
        return fail(out, path, k, "must match exactly one of the " + std::to_string(k.nodes.size()) +
                                      " schemas in oneOf, matched schemas " + which);
      }
      case KeywordKind::Not:
        if (!eval(k.node, instance, path, nullptr, nullptr)) return true;
        if (!out) return false;
        return fail(out, path, k, "must not match the schema in `not`");
      case KeywordKind::IfThenElse: {
        if (eval_branch(k.node, instance, path, nullptr, evaluated)) {
          return k.then_node == kNoNode || eval_branch(k.then_node, instance, path, out, evaluated);
        }
        return k.else_node == kNoNode || eval_branch(k.else_node, instance, path, out, evaluated);
      }
      default: return true;
    }
  }

  bool check_unevaluated(const Keyword& k, const Value& instance, const InstancePath* path, std::vector<Violation>* out,
                         Evaluated* evaluated) {
    switch (k.kind) {
      case KeywordKind::UnevaluatedItems: {
        if (!instance.is_array() || !evaluated) return true;
        bool ok = true;
        for (size_t i = 0; i < instance.size(); ++i) {
          if (evaluated->items[i]) continue;
          InstancePath child{path, {}, i, true};
          if (!check_rest(k.node, k.location, *instance.at(i), &child, out,
                          [] { return std::string("item is not allowed here (unevaluatedItems)"); })) {
            ok = false;
            if (!out) return false;
          }
          evaluated->items[i] = true;
        }
        return ok;
      }
      case KeywordKind::UnevaluatedProperties: {
        if (!instance.is_object() || !evaluated) return true;
        bool ok = true;
        const Object& members = instance.get_object();
        for (size_t i = 0; i < members.size(); ++i) {
          if (evaluated->members[i]) continue;
          InstancePath child{path, members[i].key.get_string()};
          auto message = [&] {
            return "property `" + std::string(members[i].key.get_string()) + "` is not allowed (unevaluatedProperties)";
          };
          if (!check_rest(k.node, k.location, members[i].value, &child, out, message)) {
            ok = false;
            if (!out) return false;
          }
          evaluated->members[i] = true;
        }
        return ok;
      }
      default: return true;
    }
  }
  // additionalProperties, additionalItems, unevaluated*: a `false` schema
  // gets a message naming what is not allowed.
  template <class Message>
  bool check_rest(NodeId id, const std::string& location, const Value& child, const InstancePath* path,
                  std::vector<Violation>* out, Message&& not_allowed) {
    if (data_.nodes[id].rejects_all) {
      if (out) report(out, path, location, not_allowed());
      return false;
    }
    return eval_child(id, child, path, out);
  }

  bool check_items(const Keyword& k, const Value& instance, const InstancePath* path, std::vector<Violation>* out,
                   Evaluated* evaluated) {
    if (!instance.is_array()) return true;
    bool ok = true;
    const Array& items = instance.get_array();
    for (size_t i = 0; i < items.size(); ++i) {
      InstancePath child{path, {}, i, true};
      bool item_ok;
      if (i < k.nodes.size()) {
        item_ok = eval_child(k.nodes[i], items[i], &child, out);
      } else if (k.node != kNoNode) {
        item_ok = check_rest(k.node, k.rest_location, items[i], &child, out, [&] {
          return "no item is allowed at index " + std::to_string(i) + " (at most " + std::to_string(k.nodes.size()) +
                 " items)";
        });
      } else {
        continue;
      }
      if (evaluated) evaluated->items[i] = true;
      if (!item_ok) {
        ok = false;
        if (!out) return false;
      }
    }
    return ok;
  }

  bool check_contains(const Keyword& k, const Value& instance, const InstancePath* path, std::vector<Violation>* out,
                      Evaluated* evaluated) {
    if (!instance.is_array()) return true;
    uint64_t matches = 0;
    for (size_t i = 0; i < instance.size(); ++i) {
      InstancePath child{path, {}, i, true};
      if (eval_child(k.node, *instance.at(i), &child, nullptr)) {
        ++matches;
        if (evaluated) evaluated->items[i] = true;
      }
    }
    if (matches >= k.count && matches <= k.max_count) return true;
    if (!out) return false;
    if (matches < k.count) {
      if (k.count == 1) return fail(out, path, k, "must contain an item that matches the `contains` schema");
      if (!out) return false;
      return fail(out, path, k, "must contain at least " + std::to_string(k.count) +
                                    " items that match the `contains` schema, found " + std::to_string(matches));
    }
    if (matches > k.max_count) {
      if (!out) return false;
      return fail(out, path, k, "must contain at most " + std::to_string(k.max_count) +
                                    " items that match the `contains` schema, found " + std::to_string(matches));
    }
    return true;
  }

  // Sorts the items' indices by value, O(n log n) where comparing every
  // pair took nearly a minute for 200,000 integers, and reports the pair
  // the pairwise scan found first: the earliest item that has a duplicate,
  // with its nearest later one.
  bool check_unique_items(const Keyword& k, const Value& instance, const InstancePath* path,
                          std::vector<Violation>* out) {
    if (!instance.is_array()) return true;
    const Array& items = instance.get_array();
    std::vector<size_t> by_value(items.size());
    std::iota(by_value.begin(), by_value.end(), size_t{0});
    std::sort(by_value.begin(), by_value.end(), [&](size_t x, size_t y) {
      const std::weak_ordering order = json_order(items[x], items[y]);
      return order != 0 ? order < 0 : x < y;
    });
    std::optional<std::pair<size_t, size_t>> duplicate;
    for (size_t start = 0, end = 0; start < by_value.size(); start = end) {
      end = start + 1;
      while (end < by_value.size() && json_order(items[by_value[start]], items[by_value[end]]) == 0) ++end;
      if (end - start < 2) continue;
      // A run of equivalent items in index order: those without a NaN are
      // all equal, one with a NaN (unequal to itself) equals none.
      std::optional<size_t> first;
      for (size_t r = start; r < end; ++r) {
        const size_t index = by_value[r];
        if (!json_equal(items[index], items[index])) continue;
        if (!first) {
          first = index;
          continue;
        }
        if (!out) return false;
        if (!duplicate || *first < duplicate->first) duplicate = {*first, index};
        break;
      }
    }
    if (!duplicate) return true;
    const auto [i, j] = *duplicate;
    return fail(out, path, k, "items must be unique, but items " + std::to_string(i) + " and " + std::to_string(j) +
                                  " are both " + show(items[i]));
  }

  bool check_properties(const Keyword& k, const Value& instance, const InstancePath* path, std::vector<Violation>* out,
                        Evaluated* evaluated) {
    if (!instance.is_object()) return true;
    bool ok = true;
    const Object& members = instance.get_object();
    size_t rule = 0;  // members and rules are both sorted by name: walk them together
    for (size_t i = 0; i < members.size(); ++i) {
      std::string_view name = members[i].key.get_string();
      InstancePath child{path, name};
      bool matched = false;
      while (rule < k.properties.size() && k.properties[rule].name < name) ++rule;
      if (rule < k.properties.size() && k.properties[rule].name == name) {
        matched = true;
        if (!eval_child(k.properties[rule].node, members[i].value, &child, out)) {
          ok = false;
          if (!out) return false;
        }
      }
      for (const PatternRule& pattern : k.patterns) {
        if (!pattern.regex.search(name)) continue;
        matched = true;
        if (!eval_child(pattern.node, members[i].value, &child, out)) {
          ok = false;
          if (!out) return false;
        }
      }
      if (!matched && k.node != kNoNode) {
        matched = true;
        if (!check_rest(k.node, k.rest_location, members[i].value, &child, out,
                        [&] { return "property `" + std::string(name) + "` is not allowed"; })) {
          ok = false;
          if (!out) return false;
        }
      }
      if (matched && evaluated) evaluated->members[i] = true;
    }
    return ok;
  }

  const CompiledSchemaData& data_;
  const ValidateOptions options_;  // a copy: callers pass temporaries
  int depth_ = 0;
  bool truncated_ = false;  // a violation was left out of a full list
};

// apply_defaults: follows properties, allOf, $ref and items, in one walk.
// Members are replaced only where a default was added below them, so that
// shared blocks of the parameters are copied only on the paths that change
// (setting a member copies a shared object). Returns whether it changed
// `instance`.
bool fill(const CompiledSchemaData& data, NodeId id, Value& instance, int depth) {
  if (depth > kMaxInPlaceDepth) return false;
  bool changed = false;
  for (const Keyword& k : data.nodes[id].keywords) {
    switch (k.kind) {
      case KeywordKind::Ref:
        changed |= fill(data, k.node, instance, depth + 1);
        break;
      case KeywordKind::AllOf:
        for (NodeId branch : k.nodes) changed |= fill(data, branch, instance, depth + 1);
        break;
      case KeywordKind::Properties:
        if (!instance.is_object()) break;
        for (const PropertyRule& rule : k.properties) {
          const Node& node = data.nodes[rule.node];
          if (const Value* present = instance.find(rule.name)) {
            Value member = *present;
            if (!fill(data, rule.node, member, depth + 1)) continue;
            instance.set(rule.name, std::move(member));
          } else if (node.has_default) {
            Value member = node.default_value;
            fill(data, rule.node, member, depth + 1);
            instance.set(rule.name, std::move(member));
          } else {
            continue;
          }
          changed = true;
        }
        break;
      case KeywordKind::Items:
        if (!instance.is_array()) break;
        for (size_t i = 0; i < instance.size(); ++i) {
          const NodeId item_node = i < k.nodes.size() ? k.nodes[i] : k.node;
          if (item_node == kNoNode) continue;
          Value item = *instance.at(i);
          if (!fill(data, item_node, item, depth + 1)) continue;
          instance.mutable_array()[i] = std::move(item);
          changed = true;
        }
        break;
      default: break;
    }
  }
  return changed;
}

}  // namespace

std::string Violation::describe() const {
  return (instance_location.empty() ? std::string("(root)") : instance_location) + ": " + message + " (schema " +
         (schema_location.empty() ? std::string("root") : schema_location) + ")";
}

std::vector<Violation> validate(const CompiledSchema& schema, const Value& instance, const ValidateOptions& options) {
  std::vector<Violation> out;
  Validator validator(schema.data(), options);
  InstancePath root;
  validator.eval(schema.data().root, instance, &root, &out, nullptr);
  if (validator.truncated()) {
    out.push_back(Violation{"", "", "more violations follow; only the first " +
                                        std::to_string(options.max_violations) + " are listed"});
  }
  return out;
}

bool is_valid(const CompiledSchema& schema, const Value& instance, const ValidateOptions& options) {
  Validator validator(schema.data(), options);
  InstancePath root;
  return validator.eval(schema.data().root, instance, &root, nullptr, nullptr);
}

Value apply_defaults(const CompiledSchema& schema, const Value& instance) {
  Value filled = instance;
  fill(schema.data(), schema.data().root, filled, 0);
  return filled;
}

// Every `default` of the document that its own subschema refuses: apply_defaults
// would fill it in, and every validation after would fail on a value the
// user never gave.
void check_defaults(const CompiledSchema& schema, std::vector<Violation>& problems) {
  Validator validator(schema.data(), ValidateOptions{});
  const std::vector<Node>& nodes = schema.data().nodes;
  for (NodeId id = 0; id < static_cast<NodeId>(nodes.size()); ++id) {
    const Node& node = nodes[id];
    // Subschemas of other documents ("uri#pointer": a meta-schema reached by
    // $ref) are not the author's; the root document's are plain pointers.
    const bool in_root_document = node.location.empty() || node.location.front() == '/';
    if (!node.has_default || !in_root_document) continue;
    std::vector<Violation> refused;
    InstancePath path;
    validator.eval(id, node.default_value, &path, &refused, nullptr);
    for (const Violation& violation : refused) {
      problems.push_back(Violation{node.location + "/default" + violation.instance_location,
                                   violation.schema_location,
                                   "the default does not satisfy its own schema: " + violation.message});
    }
  }
}

std::vector<Violation> check_schema(const Value& schema, Draft default_draft) {
  Draft draft = draft_of(schema, default_draft);
  static const CompiledSchema kMetaSchemas[] = {
      *compile_schema(meta_schema(Draft::Draft4), Draft::Draft4),
      *compile_schema(meta_schema(Draft::Draft6), Draft::Draft6),
      *compile_schema(meta_schema(Draft::Draft7), Draft::Draft7),
      *compile_schema(meta_schema(Draft::Draft2020_12), Draft::Draft7),
  };
  size_t index = draft == Draft::Draft4 ? 0 : draft == Draft::Draft6 ? 1 : draft == Draft::Draft7 ? 2 : 3;
  std::vector<Violation> problems = validate(kMetaSchemas[index], schema);
  // Read with another draft's rules, the schema would not mean what its
  // author meant.
  const Value* named = schema.is_object() ? schema.find("$schema") : nullptr;
  if (named != nullptr && named->is_string() && !named_draft(named->get_string())) {
    problems.push_back(Violation{"/$schema", "",
                                 "unknown meta-schema " + to_json(*named) +
                                     ": Sindri knows JSON Schema draft-04, draft-06, draft-07, 2019-09 and 2020-12"});
  }
  if (problems.empty()) {
    auto compiled = compile_schema(schema, default_draft);
    if (!compiled) {
      problems.push_back(Violation{compiled.error().pointer, "", compiled.error().message});
    } else {
      check_defaults(*compiled, problems);
    }
  }
  return problems;
}

}  // namespace sindri::schema
