// compile_schema: from a schema Value to CompiledSchemaData.
//
// Two passes. The scan walks every subschema of every known document and
// records the base URI in force there, and which URIs (`$id`, anchors) name
// which locations. The build then turns subschemas into nodes; a `$ref`
// is resolved after its node is built, by URI, building its target on
// demand, so recursive schemas simply point back at an existing node.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>

#include "value/pointer.hpp"
#include "schema/internal.hpp"
#include "schema/meta_schemas.hpp"
#include "value/json.hpp"

namespace sindri::schema {

namespace {

bool at_least(Draft d, Draft min) { return static_cast<int>(d) >= static_cast<int>(min); }

// ---- URIs -----------------------------------------------------------------

std::string strip_fragment(std::string_view uri) {
  return std::string(uri.substr(0, uri.find('#')));
}

std::string_view scheme_of(std::string_view uri) {
  size_t colon = uri.find(':');
  if (colon == std::string_view::npos || uri.find_first_of("/?#") < colon) return {};
  return uri.substr(0, colon);
}

std::string remove_dot_segments(std::string_view path) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  bool absolute = !path.empty() && path[0] == '/';
  if (absolute) pos = 1;
  bool trailing_slash = false;
  while (pos <= path.size()) {
    size_t end = path.find('/', pos);
    if (end == std::string_view::npos) end = path.size();
    std::string_view seg = path.substr(pos, end - pos);
    trailing_slash = false;
    if (seg == "..") {
      if (!out.empty()) out.pop_back();
      trailing_slash = true;
    } else if (seg == ".") {
      trailing_slash = true;
    } else {
      out.push_back(seg);
    }
    pos = end + 1;
  }
  std::string result = absolute ? "/" : "";
  for (size_t i = 0; i < out.size(); ++i) {
    if (i) result += '/';
    result += out[i];
  }
  if (trailing_slash && !out.empty()) result += '/';
  return result;
}

// RFC 3986 section 5.2, enough for the references schemas use.
std::string resolve_uri(std::string_view base, std::string_view ref) {
  if (!scheme_of(ref).empty()) return std::string(ref);
  if (ref.empty()) return strip_fragment(base);
  if (ref[0] == '#') return strip_fragment(base) + std::string(ref);
  std::string_view scheme = scheme_of(base);
  std::string_view rest = base.substr(scheme.empty() ? 0 : scheme.size() + 1);
  rest = rest.substr(0, rest.find_first_of("?#"));
  std::string prefix = scheme.empty() ? "" : std::string(scheme) + ":";
  if (ref.substr(0, 2) == "//") return prefix + std::string(ref);
  std::string authority;
  if (rest.substr(0, 2) == "//") {
    size_t end = rest.find('/', 2);
    authority = std::string(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
  }
  size_t ref_end = ref.find_first_of("?#");
  std::string_view ref_path = ref.substr(0, ref_end);
  std::string_view ref_tail = ref_end == std::string_view::npos ? std::string_view() : ref.substr(ref_end);
  std::string path;
  if (!ref_path.empty() && ref_path[0] == '/') {
    path = std::string(ref_path);
  } else if (ref_path.empty()) {
    path = std::string(rest);
  } else {
    size_t slash = rest.rfind('/');
    std::string dir = slash == std::string_view::npos ? (authority.empty() ? "" : "/") : std::string(rest.substr(0, slash + 1));
    path = dir + std::string(ref_path);
  }
  return prefix + authority + remove_dot_segments(path) + std::string(ref_tail);
}

std::string percent_decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}


// ---- The keywords that hold subschemas ------------------------------------

bool ref_overrides_siblings(const Value& schema, Draft draft) {
  return !at_least(draft, Draft::Draft2019_09) && schema.find("$ref") != nullptr;
}

// Calls fn(escaped pointer suffix, subschema) for each subschema directly
// under `schema`.
template <class Fn>
void for_each_subschema(const Value& schema, Draft draft, Fn&& fn) {
  if (!schema.is_object() || ref_overrides_siblings(schema, draft)) return;
  for (const Member& m : schema.get_object()) {
    std::string_view key = m.key.get_string();
    const Value& v = m.value;
    std::string prefix = pointer_child({}, key);
    auto each_in_array = [&] {
      if (!v.is_array()) return;
      for (size_t i = 0; i < v.size(); ++i) fn(prefix + "/" + std::to_string(i), *v.at(i));
    };
    auto each_in_map = [&] {
      if (!v.is_object()) return;
      for (const Member& e : v.get_object()) fn(pointer_child(prefix, e.key.get_string()), e.value);
    };
    if (key == "additionalItems" || key == "additionalProperties" || key == "contains" ||
        key == "propertyNames" || key == "not" || key == "if" || key == "then" || key == "else" ||
        key == "unevaluatedItems" || key == "unevaluatedProperties" || key == "contentSchema") {
      fn(prefix, v);
    } else if (key == "items") {
      if (v.is_array()) {
        each_in_array();
      } else {
        fn(prefix, v);
      }
    } else if (key == "allOf" || key == "anyOf" || key == "oneOf" || key == "prefixItems") {
      each_in_array();
    } else if (key == "properties" || key == "patternProperties" || key == "definitions" || key == "$defs" ||
               key == "dependentSchemas") {
      each_in_map();
    } else if (key == "dependencies" && v.is_object()) {
      for (const Member& e : v.get_object()) {
        if (e.value.is_object() || e.value.is_bool()) fn(pointer_child(prefix, e.key.get_string()), e.value);
      }
    }
  }
}

// ---- Messages -------------------------------------------------------------

std::string_view id_keyword(Draft draft) { return draft == Draft::Draft4 ? "id" : "$id"; }

struct Document {
  std::string uri;  // without fragment; may be empty for the root
  Value root;
};

struct Location {
  size_t document;
  std::string pointer;
};

struct PendingRef {
  NodeId node;
  size_t keyword;
  std::string uri;
  std::string base;
};

class Compiler {
 public:
  Compiler(Draft draft, const CompileOptions& options) : draft_(draft), options_(options) {}

  Result<CompiledSchemaData, SchemaError> run(const Value& schema) {
    std::string root_uri;
    if (schema.is_object()) {
      const Value* id = schema.find(id_keyword(draft_));
      if (id && id->is_string() && !ref_overrides_siblings(schema, draft_)) root_uri = strip_fragment(id->get_string());
    }
    add_document(root_uri, schema);
    for (const auto& [uri, doc] : options_.documents) add_document(strip_fragment(uri), doc);
    if (!error_.message.empty()) return error_;

    data_.root = build(0, "", schema, root_uri);
    while (error_.message.empty() && !pending_.empty()) {
      PendingRef ref = std::move(pending_.back());
      pending_.pop_back();
      NodeId target = resolve(ref);
      data_.nodes[ref.node].keywords[ref.keyword].node = target;
    }
    if (!error_.message.empty()) return error_;
    data_.draft = draft_;
    return std::move(data_);
  }

 private:
  void fail(std::string pointer, std::string message) {
    if (error_.message.empty()) error_ = SchemaError{std::move(pointer), std::move(message)};
  }

  // Where a schema location is shown: a bare pointer in the root document.
  std::string display(size_t document, const std::string& pointer) const {
    return document == 0 ? pointer : documents_[document].uri + "#" + pointer;
  }

  void add_document(const std::string& uri, const Value& root) {
    size_t index = documents_.size();
    documents_.push_back(Document{uri, root});
    resources_.emplace(uri, Location{index, ""});
    scan(index, "", root, uri);
  }

  // Records base URIs, `$id` resources and anchors under `value`.
  void scan(size_t document, const std::string& pointer, const Value& value, std::string base) {
    if (value.is_object() && !ref_overrides_siblings(value, draft_)) {
      const Value* id = value.find(id_keyword(draft_));
      if (id && id->is_string()) {
        std::string resolved = resolve_uri(base, id->get_string());
        size_t hash = resolved.find('#');
        std::string fragment = hash == std::string::npos ? "" : resolved.substr(hash + 1);
        if (id->get_string().substr(0, 1) != "#") {
          base = strip_fragment(resolved);
          resources_.emplace(base, Location{document, pointer});
        }
        if (!fragment.empty() && fragment[0] != '/') resources_.emplace(base + "#" + fragment, Location{document, pointer});
      }
      if (at_least(draft_, Draft::Draft2019_09)) {
        for (const char* anchor_keyword : {"$anchor", "$dynamicAnchor"}) {
          const Value* anchor = value.find(anchor_keyword);
          if (anchor && anchor->is_string()) {
            resources_.emplace(base + "#" + std::string(anchor->get_string()), Location{document, pointer});
          }
        }
      }
    }
    bases_[key(document, pointer)] = base;
    for_each_subschema(value, draft_, [&](const std::string& suffix, const Value& child) {
      scan(document, pointer + suffix, child, base);
    });
  }

  static std::string key(size_t document, const std::string& pointer) {
    return std::to_string(document) + "#" + pointer;
  }

  std::string base_at(size_t document, const std::string& pointer) const {
    auto it = bases_.find(key(document, pointer));
    if (it != bases_.end()) return it->second;
    // A pointer into a place the scan did not reach: the base of the
    // nearest scanned ancestor.
    std::string p = pointer;
    while (!p.empty()) {
      p.resize(p.rfind('/'));
      it = bases_.find(key(document, p));
      if (it != bases_.end()) return it->second;
    }
    return documents_[document].uri;
  }

  // The embedded meta-schema a URI names, if any.
  const char* embedded_meta_schema(const std::string& uri) const {
    if (uri == "http://json-schema.org/draft-04/schema") return kDraft4MetaSchema;
    if (uri == "http://json-schema.org/draft-06/schema") return kDraft6MetaSchema;
    if (uri == "http://json-schema.org/draft-07/schema") return kDraft7MetaSchema;
    if (uri == "https://json-schema.org/draft/2020-12/schema") return kDraft2020MetaSchema;
    return nullptr;
  }

  NodeId resolve(const PendingRef& ref) {
    const std::string& where = data_.nodes[ref.node].keywords[ref.keyword].location;
    std::string uri = resolve_uri(ref.base, ref.uri);
    size_t hash = uri.find('#');
    std::string document_uri = strip_fragment(uri);
    std::string fragment = hash == std::string::npos ? "" : percent_decode(uri.substr(hash + 1));

    if (resources_.find(document_uri) == resources_.end()) {
      const char* meta = embedded_meta_schema(document_uri);
      if (!meta) {
        fail(where, "remote reference `" + ref.uri + "` (" + document_uri +
                        ") is not fetched; only references within this schema, its registered documents "
                        "and the embedded meta-schemas resolve");
        return 0;
      }
      add_document(document_uri, *parse_json(meta));
    }
    Location target;
    if (fragment.empty() || fragment[0] == '/') {
      Location resource = resources_.at(document_uri);
      target = Location{resource.document, resource.pointer + fragment};
    } else {
      auto it = resources_.find(document_uri + "#" + fragment);
      if (it == resources_.end()) {
        fail(where, "reference `" + ref.uri + "`: no schema has the anchor `" + fragment + "`");
        return 0;
      }
      target = it->second;
    }
    auto built = built_.find(key(target.document, target.pointer));
    if (built != built_.end()) return built->second;
    const Value* value = follow_pointer(documents_[target.document].root, target.pointer);
    if (!value) {
      fail(where, "reference `" + ref.uri + "` points at nothing");
      return 0;
    }
    return build(target.document, target.pointer, *value, base_at(target.document, target.pointer));
  }

  NodeId build(size_t document, const std::string& pointer, const Value& schema, std::string base) {
    auto [it, inserted] = built_.emplace(key(document, pointer), static_cast<NodeId>(data_.nodes.size()));
    if (!inserted) return it->second;
    NodeId id = it->second;
    data_.nodes.emplace_back();
    Node node;
    node.location = display(document, pointer);
    if (schema.is_bool()) {
      node.rejects_all = !schema.get_bool();
      data_.nodes[id] = std::move(node);
      return id;
    }
    if (!schema.is_object()) {
      fail(pointer, std::string("a schema must be an object or a boolean, not ") + schema.kind_name());
      return id;
    }
    if (const Value* id_value = schema.find(id_keyword(draft_));
        id_value && id_value->is_string() && !ref_overrides_siblings(schema, draft_)) {
      base = strip_fragment(resolve_uri(base, id_value->get_string()));
    }
    NodeBuilder builder{*this, document, pointer, schema, base, node, {}};
    builder.run();
    node.tracks_evaluated = false;
    for (const Keyword& k : node.keywords) {
      if (k.kind == KeywordKind::UnevaluatedItems || k.kind == KeywordKind::UnevaluatedProperties) {
        node.tracks_evaluated = true;
      }
    }
    size_t ref_count = 0;
    for (size_t i = 0; i < node.keywords.size(); ++i) {
      if (node.keywords[i].kind == KeywordKind::Ref) {
        pending_.push_back(PendingRef{id, i, builder.ref_uris[ref_count++], base});
      }
    }
    data_.nodes[id] = std::move(node);
    return id;
  }

  // Turns the keywords of one schema object into Keyword entries.
  struct NodeBuilder {
    Compiler& c;
    size_t document;
    const std::string& pointer;
    const Value& schema;
    const std::string& base;
    Node& node;
    std::vector<std::string> ref_uris;

    Draft draft() const { return c.draft_; }
    std::string here(std::string_view keyword) const { return pointer_child(pointer, keyword); }
    std::string shown(std::string_view keyword) const { return c.display(document, here(keyword)); }

    Keyword& add(KeywordKind kind, std::string_view keyword) {
      node.keywords.push_back(Keyword{});
      Keyword& k = node.keywords.back();
      k.kind = kind;
      k.location = shown(keyword);
      return k;
    }

    NodeId sub(const std::string& suffix, const Value& value) {
      return c.build(document, pointer + suffix, value, base);
    }

    bool bad(std::string_view keyword, const std::string& what) {
      std::string message = "`";
      message += keyword;
      message += "` ";
      message += what;
      c.fail(here(keyword), message);
      return false;
    }

    const Value* get(std::string_view keyword) const { return schema.find(keyword); }

    // A length, size or count limit. One of 2^64 or more (1e30, or
    // 18446744073709551615 read as the double 2^64) is more than any size
    // and saturates: converting it to uint64_t is undefined.
    bool count_of(std::string_view keyword, uint64_t& out) {
      constexpr double kTwoTo64 = 18446744073709551616.0;
      const Value* v = get(keyword);
      if (!v) return false;
      if (v->is_int() && v->get_int() >= 0) {
        out = static_cast<uint64_t>(v->get_int());
        return true;
      }
      if (!v->is_float() || !(v->get_float() >= 0) || std::floor(v->get_float()) != v->get_float()) {
        return bad(keyword, "must be a non-negative integer");
      }
      const double d = v->get_float();
      out = d >= kTwoTo64 ? std::numeric_limits<uint64_t>::max() : static_cast<uint64_t>(d);
      return true;
    }

    void run() {
      if (const Value* ref = get("$ref")) {
        if (!ref->is_string()) {
          bad("$ref", "must be a string");
          return;
        }
        add(KeywordKind::Ref, "$ref");
        ref_uris.emplace_back(ref->get_string());
        if (!at_least(draft(), Draft::Draft2019_09)) return;  // siblings of $ref are ignored before 2019-09
      }
      for (const char* dynamic : {"$dynamicRef", "$recursiveRef"}) {
        const Value* ref = get(dynamic);
        if (ref && ref->is_string() && at_least(draft(), Draft::Draft2019_09)) {
          add(KeywordKind::Ref, dynamic);
          ref_uris.emplace_back(ref->get_string());
        }
      }
      if (const Value* d = get("default")) {
        node.has_default = true;
        node.default_value = *d;
      }
      types();
      if (const Value* e = get("enum")) {
        if (!e->is_array()) {
          bad("enum", "must be an array");
        } else {
          add(KeywordKind::Enum, "enum").values = e->get_array();
        }
      }
      if (const Value* v = get("const"); v && at_least(draft(), Draft::Draft6)) add(KeywordKind::Const, "const").value = *v;
      numbers();
      strings();
      arrays();
      objects();
      applicators();
      unevaluated();
    }

    void types() {
      const Value* t = get("type");
      if (!t) return;
      uint8_t mask = 0;
      auto bit = [&](const Value& name) -> bool {
        if (!name.is_string()) return bad("type", "must name types as strings");
        std::string_view n = name.get_string();
        if (n == "null") mask |= kNullType;
        else if (n == "boolean") mask |= kBooleanType;
        else if (n == "integer") mask |= kIntegerType;
        else if (n == "number") mask |= kNumberType;
        else if (n == "string") mask |= kStringType;
        else if (n == "array") mask |= kArrayType;
        else if (n == "object") mask |= kObjectType;
        else return bad("type", "names an unknown type \"" + std::string(n) + "\"");
        return true;
      };
      if (t->is_array()) {
        for (const Value& v : t->get_array()) {
          if (!bit(v)) return;
        }
      } else if (!bit(*t)) {
        return;
      }
      add(KeywordKind::Type, "type").types = mask;
    }

    void numbers() {
      auto limit = [&](std::string_view keyword, KeywordKind kind) {
        const Value* v = get(keyword);
        if (!v) return;
        if (!v->is_number()) {
          bad(keyword, "must be a number");
          return;
        }
        add(kind, keyword).value = *v;
      };
      if (const Value* m = get("multipleOf")) {
        if (!m->is_number() || m->as_double() <= 0) {
          bad("multipleOf", "must be a number greater than 0");
        } else {
          add(KeywordKind::MultipleOf, "multipleOf").value = *m;
        }
      }
      if (draft() == Draft::Draft4) {
        // Draft 4: exclusiveMaximum/exclusiveMinimum are booleans that make
        // maximum/minimum strict.
        auto strict = [&](std::string_view keyword) {
          const Value* v = get(keyword);
          return v && v->is_bool() && v->get_bool();
        };
        limit("maximum", strict("exclusiveMaximum") ? KeywordKind::ExclusiveMaximum : KeywordKind::Maximum);
        limit("minimum", strict("exclusiveMinimum") ? KeywordKind::ExclusiveMinimum : KeywordKind::Minimum);
      } else {
        limit("maximum", KeywordKind::Maximum);
        limit("exclusiveMaximum", KeywordKind::ExclusiveMaximum);
        limit("minimum", KeywordKind::Minimum);
        limit("exclusiveMinimum", KeywordKind::ExclusiveMinimum);
      }
    }

    void strings() {
      uint64_t n;
      if (count_of("maxLength", n)) add(KeywordKind::MaxLength, "maxLength").count = n;
      if (count_of("minLength", n)) add(KeywordKind::MinLength, "minLength").count = n;
      if (const Value* p = get("pattern")) {
        if (!p->is_string()) {
          bad("pattern", "must be a string");
        } else if (auto regex = Regex::compile(p->get_string()); !regex) {
          bad("pattern", "is an " + regex.error().message);
        } else {
          Keyword& k = add(KeywordKind::Pattern, "pattern");
          k.value = *p;
          k.regex = std::move(*regex);
        }
      }
      if (const Value* f = get("format"); f && f->is_string()) {
        Format format = format_from_name(f->get_string());
        if (format != Format::Unknown) {
          Keyword& k = add(KeywordKind::Format, "format");
          k.format = format;
          k.name = std::string(f->get_string());
        }
      }
    }

    void arrays() {
      const Value* items = get("items");
      const Value* prefix = at_least(draft(), Draft::Draft2020_12) ? get("prefixItems") : nullptr;
      if (items || prefix) {
        Keyword k;
        k.kind = KeywordKind::Items;
        if (prefix && prefix->is_array()) {
          k.location = shown("prefixItems");
          for (size_t i = 0; i < prefix->size(); ++i) k.nodes.push_back(sub("/prefixItems/" + std::to_string(i), *prefix->at(i)));
          if (items) {
            k.node = sub("/items", *items);
            k.rest_location = shown("items");
          }
        } else if (items && items->is_array()) {
          k.location = shown("items");
          for (size_t i = 0; i < items->size(); ++i) k.nodes.push_back(sub("/items/" + std::to_string(i), *items->at(i)));
          if (const Value* additional = get("additionalItems")) {
            k.node = sub("/additionalItems", *additional);
            k.rest_location = shown("additionalItems");
          }
        } else if (items) {
          k.location = shown("items");
          k.rest_location = k.location;
          k.node = sub("/items", *items);
        }
        node.keywords.push_back(std::move(k));
      }
      if (const Value* contains = get("contains"); contains && at_least(draft(), Draft::Draft6)) {
        NodeId target = sub("/contains", *contains);
        Keyword& k = add(KeywordKind::Contains, "contains");
        k.node = target;
        k.count = 1;
        if (at_least(draft(), Draft::Draft2019_09)) {
          count_of("minContains", k.count);
          count_of("maxContains", k.max_count);
        }
      }
      uint64_t n;
      if (count_of("maxItems", n)) add(KeywordKind::MaxItems, "maxItems").count = n;
      if (count_of("minItems", n)) add(KeywordKind::MinItems, "minItems").count = n;
      if (const Value* u = get("uniqueItems"); u && u->is_bool() && u->get_bool()) add(KeywordKind::UniqueItems, "uniqueItems");
    }

    void objects() {
      const Value* properties = get("properties");
      const Value* patterns = get("patternProperties");
      const Value* additional = get("additionalProperties");
      if (properties || patterns || additional) {
        Keyword k;
        k.kind = KeywordKind::Properties;
        k.location = shown(properties ? "properties" : patterns ? "patternProperties" : "additionalProperties");
        if (properties && properties->is_object()) {
          for (const Member& m : properties->get_object()) {
            std::string name(m.key.get_string());
            k.properties.push_back(PropertyRule{name, sub(pointer_child("/properties", name), m.value)});
          }
        }
        if (patterns && patterns->is_object()) {
          for (const Member& m : patterns->get_object()) {
            auto regex = Regex::compile(m.key.get_string());
            if (!regex) {
              bad("patternProperties", "has an " + regex.error().message);
              return;
            }
            NodeId target = sub(pointer_child("/patternProperties", m.key.get_string()), m.value);
            k.patterns.push_back(PatternRule{std::move(*regex), target});
          }
        }
        if (additional) {
          k.node = sub("/additionalProperties", *additional);
          k.rest_location = shown("additionalProperties");
        }
        node.keywords.push_back(std::move(k));
      }
      if (const Value* r = get("required")) {
        if (!r->is_array()) {
          bad("required", "must be an array of strings");
        } else {
          std::vector<std::string> names;
          for (const Value& v : r->get_array()) {
            if (!v.is_string()) {
              bad("required", "must be an array of strings");
              return;
            }
            names.emplace_back(v.get_string());
          }
          add(KeywordKind::Required, "required").names = std::move(names);
        }
      }
      uint64_t n;
      if (count_of("maxProperties", n)) add(KeywordKind::MaxProperties, "maxProperties").count = n;
      if (count_of("minProperties", n)) add(KeywordKind::MinProperties, "minProperties").count = n;
      if (const Value* names = get("propertyNames"); names && at_least(draft(), Draft::Draft6)) {
        NodeId target = sub("/propertyNames", *names);
        add(KeywordKind::PropertyNames, "propertyNames").node = target;
      }
      dependencies();
    }

    void dependencies() {
      auto required_list = [&](std::string_view keyword, const Member& m, DependencyRule& rule) {
        for (const Value& v : m.value.get_array()) {
          if (!v.is_string()) return bad(keyword, "must list property names as strings");
          rule.required.emplace_back(v.get_string());
        }
        rule.required_location = pointer_child(shown(keyword), m.key.get_string());
        return true;
      };
      for (const char* keyword : {"dependencies", "dependentRequired", "dependentSchemas"}) {
        const Value* deps = get(keyword);
        if (!deps) continue;
        std::string_view kw = keyword;
        if (kw != "dependencies" && !at_least(draft(), Draft::Draft2019_09)) continue;
        if (!deps->is_object()) {
          bad(kw, "must be an object");
          continue;
        }
        Keyword k;
        k.kind = KeywordKind::Dependencies;
        k.location = shown(kw);
        for (const Member& m : deps->get_object()) {
          DependencyRule rule;
          rule.property = std::string(m.key.get_string());
          if (m.value.is_array() && kw != "dependentSchemas") {
            if (!required_list(kw, m, rule)) return;
          } else if (kw != "dependentRequired") {
            rule.schema = sub(pointer_child(pointer_child({}, kw), rule.property), m.value);
          } else {
            bad(kw, "must map property names to arrays of names");
            return;
          }
          k.dependencies.push_back(std::move(rule));
        }
        node.keywords.push_back(std::move(k));
      }
    }

    void applicators() {
      for (auto [keyword, kind] : {std::pair{"allOf", KeywordKind::AllOf}, std::pair{"anyOf", KeywordKind::AnyOf},
                                   std::pair{"oneOf", KeywordKind::OneOf}}) {
        const Value* list = get(keyword);
        if (!list) continue;
        if (!list->is_array() || list->size() == 0) {
          bad(keyword, "must be a non-empty array of schemas");
          continue;
        }
        std::vector<NodeId> branches;
        for (size_t i = 0; i < list->size(); ++i) {
          branches.push_back(sub(pointer_child(pointer_child({}, keyword), std::to_string(i)), *list->at(i)));
        }
        add(kind, keyword).nodes = std::move(branches);
      }
      if (const Value* n = get("not")) {
        NodeId target = sub("/not", *n);
        add(KeywordKind::Not, "not").node = target;
      }
      if (const Value* condition = get("if"); condition && at_least(draft(), Draft::Draft7)) {
        NodeId if_node = sub("/if", *condition);
        NodeId then_node = get("then") ? sub("/then", *get("then")) : kNoNode;
        NodeId else_node = get("else") ? sub("/else", *get("else")) : kNoNode;
        Keyword& k = add(KeywordKind::IfThenElse, "if");
        k.node = if_node;
        k.then_node = then_node;
        k.else_node = else_node;
      }
      // Subschemas only reachable by reference still need checking for
      // errors; building them here costs nothing at validation time.
      for (const char* keyword : {"definitions", "$defs"}) {
        const Value* defs = get(keyword);
        if (!defs || !defs->is_object()) continue;
        for (const Member& m : defs->get_object()) {
          sub(pointer_child(pointer_child({}, keyword), m.key.get_string()), m.value);
        }
      }
    }

    void unevaluated() {
      if (!at_least(draft(), Draft::Draft2019_09)) return;
      if (const Value* u = get("unevaluatedItems")) {
        NodeId target = sub("/unevaluatedItems", *u);
        add(KeywordKind::UnevaluatedItems, "unevaluatedItems").node = target;
      }
      if (const Value* u = get("unevaluatedProperties")) {
        NodeId target = sub("/unevaluatedProperties", *u);
        add(KeywordKind::UnevaluatedProperties, "unevaluatedProperties").node = target;
      }
    }
  };

  Draft draft_;
  const CompileOptions& options_;
  CompiledSchemaData data_;
  SchemaError error_;
  std::vector<Document> documents_;
  std::map<std::string, Location> resources_;
  std::unordered_map<std::string, std::string> bases_;
  std::unordered_map<std::string, NodeId> built_;
  std::vector<PendingRef> pending_;
};

}  // namespace

const char* draft_name(Draft draft) {
  switch (draft) {
    case Draft::Draft4: return "draft-04";
    case Draft::Draft6: return "draft-06";
    case Draft::Draft7: return "draft-07";
    case Draft::Draft2019_09: return "2019-09";
    case Draft::Draft2020_12: return "2020-12";
  }
  return "unknown";
}

std::string SchemaError::describe() const {
  return (pointer.empty() ? std::string("at the schema root") : "at " + pointer) + ": " + message;
}

Draft CompiledSchema::draft() const { return data_->draft; }

std::optional<Draft> named_draft(std::string_view uri) {
  if (uri.find("draft-04") != std::string_view::npos) return Draft::Draft4;
  if (uri.find("draft-06") != std::string_view::npos) return Draft::Draft6;
  if (uri.find("draft-07") != std::string_view::npos) return Draft::Draft7;
  if (uri.find("2019-09") != std::string_view::npos) return Draft::Draft2019_09;
  if (uri.find("2020-12") != std::string_view::npos) return Draft::Draft2020_12;
  return std::nullopt;
}

Draft draft_of(const Value& schema, Draft fallback) {
  const Value* s = schema.is_object() ? schema.find("$schema") : nullptr;
  if (!s || !s->is_string()) return fallback;
  return named_draft(s->get_string()).value_or(fallback);
}

Result<CompiledSchema, SchemaError> compile_schema(const Value& schema, const CompileOptions& options) {
  Compiler compiler(draft_of(schema, options.default_draft), options);
  SINDRI_TRY(data, compiler.run(schema));
  return CompiledSchema(std::make_shared<const CompiledSchemaData>(std::move(data)));
}

Result<CompiledSchema, SchemaError> compile_schema(const Value& schema, Draft default_draft) {
  CompileOptions options;
  options.default_draft = default_draft;
  return compile_schema(schema, options);
}

const Value& meta_schema(Draft draft) {
  static const Value kMeta[] = {*parse_json(kDraft4MetaSchema), *parse_json(kDraft6MetaSchema),
                                *parse_json(kDraft7MetaSchema), *parse_json(kDraft2020MetaSchema)};
  switch (draft) {
    case Draft::Draft4: return kMeta[0];
    case Draft::Draft6: return kMeta[1];
    case Draft::Draft7: return kMeta[2];
    case Draft::Draft2019_09:
    case Draft::Draft2020_12: return kMeta[3];
  }
  return kMeta[3];
}

bool constrains_anything(const Value& schema, Draft default_draft) {
  if (!schema.is_object()) return true;
  // Keywords that describe, name or hold definitions but refuse no value.
  static constexpr std::string_view kNotConstraining[] = {
      "$schema", "$id",     "id",       "$anchor",    "$dynamicAnchor", "$vocabulary", "$comment", "$defs",
      "definitions", "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly"};
  const Value* keywords = meta_schema(draft_of(schema, default_draft)).find("properties");
  for (const Member& member : schema.get_object()) {
    const std::string_view key = member.key.get_string();
    const bool describes_only =
        std::find(std::begin(kNotConstraining), std::end(kNotConstraining), key) != std::end(kNotConstraining);
    if (describes_only) continue;
    if (keywords->find(key) != nullptr) return true;
  }
  return false;
}

}  // namespace sindri::schema
