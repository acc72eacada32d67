#pragma once
// The compiled form of a schema, shared by compile.cpp and validate.cpp:
// a flat list of nodes, one per subschema, each with the keywords it
// checks already parsed (numbers, regexes, property tables sorted like
// Value objects so that properties are matched by a merge walk).

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "schema/formats.hpp"
#include "schema/regex.hpp"
#include "schema/schema.hpp"
#include "value/json_compare.hpp"
#include "value/value.hpp"

namespace sindri::schema {

using NodeId = uint32_t;
constexpr NodeId kNoNode = std::numeric_limits<NodeId>::max();

enum TypeBit : uint8_t {
  kNullType = 1,
  kBooleanType = 2,
  kIntegerType = 4,
  kNumberType = 8,
  kStringType = 16,
  kArrayType = 32,
  kObjectType = 64,
};

enum class KeywordKind : uint8_t {
  Ref,
  Type,
  Enum,
  Const,
  MultipleOf,
  Maximum,
  ExclusiveMaximum,
  Minimum,
  ExclusiveMinimum,
  MaxLength,
  MinLength,
  Pattern,
  Format,
  Items,  // prefixItems / array-form items, then the schema for the rest
  Contains,
  MaxItems,
  MinItems,
  UniqueItems,
  Properties,  // properties, patternProperties and additionalProperties together
  Required,
  MaxProperties,
  MinProperties,
  PropertyNames,
  Dependencies,  // dependencies, dependentRequired, dependentSchemas
  AllOf,
  AnyOf,
  OneOf,
  Not,
  IfThenElse,
  UnevaluatedItems,  // always after every other keyword of its node
  UnevaluatedProperties,
};

struct PropertyRule {
  std::string name;
  NodeId node;
};

struct PatternRule {
  Regex regex;
  NodeId node;
};

struct DependencyRule {
  std::string property;
  std::vector<std::string> required;
  std::string required_location;
  NodeId schema = kNoNode;
};

struct Keyword {
  KeywordKind kind;
  std::string location;  // JSON pointer of the keyword in the schema
  // Items: where additionalItems / items-after-prefixItems is; Properties:
  // where additionalProperties is.
  std::string rest_location;
  Value value;                // limit, `const`, or `pattern` text
  uint64_t count = 0;         // length and size limits; minContains
  uint64_t max_count = std::numeric_limits<uint64_t>::max();  // maxContains
  uint8_t types = 0;
  Format format = Format::Unknown;
  std::string name;  // the format's name
  std::vector<Value> values;  // enum
  std::optional<Regex> regex;
  std::vector<NodeId> nodes;  // allOf/anyOf/oneOf branches, prefix items
  NodeId node = kNoNode;      // not, contains, if, propertyNames, the rest of items, additionalProperties, $ref target
  NodeId then_node = kNoNode;
  NodeId else_node = kNoNode;
  std::vector<std::string> names;  // required
  std::vector<PropertyRule> properties;  // sorted by name, as Value objects are
  std::vector<PatternRule> patterns;
  std::vector<DependencyRule> dependencies;
};

struct Node {
  std::string location;  // JSON pointer of the subschema ("uri#pointer" outside the root document)
  bool rejects_all = false;  // the `false` schema
  bool tracks_evaluated = false;  // has unevaluatedItems / unevaluatedProperties
  bool has_default = false;
  Value default_value;
  std::vector<Keyword> keywords;
};

struct CompiledSchemaData {
  Draft draft = Draft::Draft2020_12;
  std::vector<Node> nodes;
  NodeId root = 0;
};

// The draft a `$schema` URI names, if it names one Sindri knows.
std::optional<Draft> named_draft(std::string_view uri);
// The draft a schema's `$schema` names, else `fallback`.
Draft draft_of(const Value& schema, Draft fallback);

}  // namespace sindri::schema
