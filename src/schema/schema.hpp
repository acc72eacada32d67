#pragma once
// JSON Schema validation of Values: compile a schema once, validate many
// instances against it.
//
// Drafts 4, 6 and 7 are implemented fully; of 2019-09 and 2020-12 the
// keywords users reach for: $defs, $anchor, $ref beside other keywords,
// dependentRequired, dependentSchemas, prefixItems, items after prefixItems,
// minContains/maxContains, unevaluatedProperties and unevaluatedItems.
// $dynamicRef and $recursiveRef resolve statically, like $ref.
//
// The draft comes from the root's `$schema`; without one it is the
// `default_draft` given to compile_schema, 2020-12 unless told otherwise.
// In 2019-09 / 2020-12 mode the draft-7 spellings a user may still write
// (`definitions`, `dependencies`, `items` as an array with
// `additionalItems`) keep their draft-7 meaning, so an unmarked draft-7
// schema validates the same way under the default.
//
// Remote references are never fetched: a `$ref` to a document that is not
// the schema itself, one of CompileOptions::documents, or a meta-schema
// Sindri embeds (drafts 4, 6, 7, and its 2020-12 subset) is a compile error
// naming the reference.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::schema {

enum class Draft { Draft4, Draft6, Draft7, Draft2019_09, Draft2020_12 };

const char* draft_name(Draft draft);

struct SchemaError {
  std::string pointer;  // JSON pointer into the schema, "" for the root
  std::string message;
  std::string describe() const;  // "at /properties/x: message"
};

struct CompileOptions {
  Draft default_draft = Draft::Draft2020_12;
  // Documents a `$ref` may point into besides the schema itself, by absolute
  // URI (their own `$id` is honoured as well); nothing else is fetched.
  std::vector<std::pair<std::string, Value>> documents;
};

struct ValidateOptions {
  // Check `format` (date-time, date, time, email, idn-email, hostname,
  // ipv4, ipv6, uri, uri-reference, iri, iri-reference, uuid, regex,
  // json-pointer, relative-json-pointer); unknown formats always pass.
  // Off: `format` is an annotation only, as the 2019+ drafts say by default.
  bool check_formats = true;
  // At most this many violations are listed (0: all), and then one more
  // saying that others follow. A large instance against a recursive schema
  // can otherwise make millions, gigabytes of messages.
  size_t max_violations = 0;
};

struct Violation {
  std::string instance_location;  // JSON pointer into the instance, "" for the root
  std::string schema_location;    // JSON pointer to the failing keyword, "/properties/port/maximum"
  std::string message;            // "must be at most 65535, got 70000"
  std::string describe() const;   // "/port: must be at most 65535, got 70000 (schema /properties/port/maximum)"
};

struct CompiledSchemaData;

// Immutable once compiled; validate may run on many threads at once.
class CompiledSchema {
 public:
  explicit CompiledSchema(std::shared_ptr<const CompiledSchemaData> data) : data_(std::move(data)) {}
  Draft draft() const;
  const CompiledSchemaData& data() const { return *data_; }

 private:
  std::shared_ptr<const CompiledSchemaData> data_;
};

Result<CompiledSchema, SchemaError> compile_schema(const Value& schema, const CompileOptions& options = {});
Result<CompiledSchema, SchemaError> compile_schema(const Value& schema, Draft default_draft);

// Every violation, in schema order within each instance location. Inside
// `not`, `anyOf`, `oneOf` and a failed `if`, the branches only decide; one
// violation at the applicator summarises them.
std::vector<Violation> validate(const CompiledSchema& schema, const Value& instance,
                                const ValidateOptions& options = {});
bool is_valid(const CompiledSchema& schema, const Value& instance, const ValidateOptions& options = {});

// Default filling: returns `instance` with each absent property that has a
// `default` inserted, following `properties` (and `allOf`, `$ref`,
// `prefixItems` / array-form `items`, and `items`) only where the instance
// has a value to descend into: an absent object gets no defaults for its
// children. Defaults inside `anyOf`, `oneOf`, `not`, `if`/`then`/`else` and
// `patternProperties` are never used, because which branch applies is not
// known before validation. Validate the returned value afterwards.
Value apply_defaults(const CompiledSchema& schema, const Value& instance);

// The schema against its draft's meta-schema (the draft from `$schema`, else
// `default_draft`), plus what compile_schema would reject (bad regexes,
// unresolvable references). Empty when the schema is good.
std::vector<Violation> check_schema(const Value& schema, Draft default_draft = Draft::Draft2020_12);

// The embedded meta-schema for a draft, as a Value.
const Value& meta_schema(Draft draft);

// Whether an object schema has at its top level a keyword of its draft (one
// its meta-schema lists) that can refuse a value: type, properties, $ref,
// ..., not title, description, default, examples, $comment, $defs and their
// kind; true for the boolean schemas. Unknown keywords are ignored, so a
// document without any, such as a values file given for a schema,
// constrains nothing.
bool constrains_anything(const Value& schema, Draft default_draft = Draft::Draft2020_12);

}  // namespace sindri::schema
