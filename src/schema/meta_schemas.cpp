// The meta-schemas Sindri embeds, for check_schema and for `$ref`s to them.
// Drafts 4, 6 and 7 are the published meta-schemas, copied from the files
// Debian ships in python3-jsonschema (jsonschema/schemas/draft{4,6,7}.json).
// The 2020-12 one is ours: the draft-07 meta-schema with the 2019-09 / 2020-12
// keywords Sindri implements added (the published one is split into
// vocabularies joined by $dynamicRef, which Sindri resolves only statically).

#include "schema/meta_schemas.hpp"

namespace sindri::schema {

const char* const kDraft4MetaSchema = R"json({
 "id": "http://json-schema.org/draft-04/schema#",
 "$schema": "http://json-schema.org/draft-04/schema#",
 "description": "Core schema meta-schema",
 "definitions": {
  "schemaArray": {
   "type": "array",
   "minItems": 1,
   "items": {
    "$ref": "#"
   }
  },
  "positiveInteger": {
   "type": "integer",
   "minimum": 0
  },
  "positiveIntegerDefault0": {
   "allOf": [
    {
     "$ref": "#/definitions/positiveInteger"
    },
    {
     "default": 0
    }
   ]
  },
  "simpleTypes": {
   "enum": [
    "array",
    "boolean",
    "integer",
    "null",
    "number",
    "object",
    "string"
   ]
  },
  "stringArray": {
   "type": "array",
   "items": {
    "type": "string"
   },
   "minItems": 1,
   "uniqueItems": true
  }
 },
 "type": "object",
 "properties": {
  "id": {
   "format": "uri",
   "type": "string"
  },
  "$schema": {
   "type": "string",
   "format": "uri"
  },
  "title": {
   "type": "string"
  },
  "description": {
   "type": "string"
  },
  "default": {},
  "multipleOf": {
   "type": "number",
   "minimum": 0,
   "exclusiveMinimum": true
  },
  "maximum": {
   "type": "number"
  },
  "exclusiveMaximum": {
   "type": "boolean",
   "default": false
  },
  "minimum": {
   "type": "number"
  },
  "exclusiveMinimum": {
   "type": "boolean",
   "default": false
  },
  "maxLength": {
   "$ref": "#/definitions/positiveInteger"
  },
  "minLength": {
   "$ref": "#/definitions/positiveIntegerDefault0"
  },
  "pattern": {
   "type": "string",
   "format": "regex"
  },
  "additionalItems": {
   "anyOf": [
    {
     "type": "boolean"
    },
    {
     "$ref": "#"
    }
   ],
   "default": {}
  },
  "items": {
   "anyOf": [
    {
     "$ref": "#"
    },
    {
     "$ref": "#/definitions/schemaArray"
    }
   ],
   "default": {}
  },
  "maxItems": {
   "$ref": "#/definitions/positiveInteger"
  },
  "minItems": {
   "$ref": "#/definitions/positiveIntegerDefault0"
  },
  "uniqueItems": {
   "type": "boolean",
   "default": false
  },
  "maxProperties": {
   "$ref": "#/definitions/positiveInteger"
  },
  "minProperties": {
   "$ref": "#/definitions/positiveIntegerDefault0"
  },
  "required": {
   "$ref": "#/definitions/stringArray"
  },
  "additionalProperties": {
   "anyOf": [
    {
     "type": "boolean"
    },
    {
     "$ref": "#"
    }
   ],
   "default": {}
  },
  "definitions": {
   "type": "object",
   "additionalProperties": {
    "$ref": "#"
   },
   "default": {}
  },
  "properties": {
   "type": "object",
   "additionalProperties": {
    "$ref": "#"
   },
   "default": {}
  },
  "patternProperties": {
   "type": "object",
   "additionalProperties": {
    "$ref": "#"
   },
   "default": {}
  },
  "dependencies": {
   "type": "object",
   "additionalProperties": {
    "anyOf": [
     {
      "$ref": "#"
     },
     {
      "$ref": "#/definitions/stringArray"
     }
    ]
   }
  },
  "enum": {
   "type": "array"
  },
  "type": {
   "anyOf": [
    {
     "$ref": "#/definitions/simpleTypes"
    },
    {
     "type": "array",
     "items": {
      "$ref": "#/definitions/simpleTypes"
     },
     "minItems": 1,
     "uniqueItems": true
    }
   ]
  },
  "format": {
   "type": "string"
  },
  "allOf": {
   "$ref": "#/definitions/schemaArray"
  },
  "anyOf": {
   "$ref": "#/definitions/schemaArray"
  },
  "oneOf": {
   "$ref": "#/definitions/schemaArray"
  },
  "not": {
   "$ref": "#"
  }
 },
 "dependencies": {
  "exclusiveMaximum": [
   "maximum"
  ],
  "exclusiveMinimum": [
   "minimum"
  ]
 },
 "default": {}
})json";

const char* const kDraft6MetaSchema = R"json({
 "$schema": "http://json-schema.org/draft-06/schema#",
 "$id": "http://json-schema.org/draft-06/schema#",
 "title": "Core schema meta-schema",
 "definitions": {
  "schemaArray": {
   "type": "array",
   "minItems": 1,
   "items": {
    "$ref": "#"
   }
  },
  "nonNegativeInteger": {
   "type": "integer",
   "minimum": 0
  },
  "nonNegativeIntegerDefault0": {
   "allOf": [
    {
     "$ref": "#/definitions/nonNegativeInteger"
    },
    {
     "default": 0
    }
   ]
  },
  "simpleTypes": {
   "enum": [
    "array",
    "boolean",
    "integer",
    "null",
    "number",
    "object",
    "string"
   ]
  },
  "stringArray": {
   "type": "array",
   "items": {
    "type": "string"
   },
   "uniqueItems": true,
   "default": []
  }
 },
 "type": [
  "object",
  "boolean"
 ],
 "properties": {
  "$id": {
   "type": "string",
   "format": "uri-reference"
  },
  "$schema": {
   "type": "string",
   "format": "uri"
  },
  "$ref": {
   "type": "string",
   "format": "uri-reference"
  },
  "title": {
   "type": "string"
  },
  "description": {
   "type": "string"
  },
  "default": {},
  "examples": {
   "type": "array",
   "items": {}
  },
  "multipleOf": {
   "type": "number",
   "exclusiveMinimum": 0
  },
  "maximum": {
   "type": "number"
  },
  "exclusiveMaximum": {
   "type": "number"
  },
  "minimum": {
   "type": "number"
  },
  "exclusiveMinimum": {
   "type": "number"
  },
  "maxLength": {
   "$ref": "#/definitions/nonNegativeInteger"
  },
  "minLength": {
   "$ref": "#/definitions/nonNegativeIntegerDefault0"
  },
  "pattern": {
   "type": "string",
   "format": "regex"
  },
  "additionalItems": {
   "$ref": "#"
  },
  "items": {
   "anyOf": [
    {
     "$ref": "#"
    },
    {
     "$ref": "#/definitions/schemaArray"
    }
   ],
   "default": {}
  },
  "maxItems": {
   "$ref": "#/definitions/nonNegativeInteger"
  },
  "minItems": {
   "$ref": "#/definitions/nonNegativeIntegerDefault0"
  },
  "uniqueItems": {
   "type": "boolean",
   "default": false
  },
  "contains": {
   "$ref": "#"
  },
  "maxProperties": {
   "$ref": "#/definitions/nonNegativeInteger"
  },
  "minProperties": {
   "$ref": "#/definitions/nonNegativeIntegerDefault0"
  },
  "required": {
   "$ref": "#/definitions/stringArray"
  },
  "additionalProperties": {
   "$ref": "#"
  },
  "definitions": {
   "type": "object",
   "additionalProperties": {
    "$ref": "#"
   },
   "default": {}
  },
  "properties": {
   "type": "object",
   "additionalProperties": {
    "$ref": "#"
   },
   "default": {}
  },
  "patternProperties": {
   "type": "object",
   "additionalProperties": {
    "$ref": "#"
   },
   "propertyNames": {
    "format": "regex"
   },
   "default": {}
  },
  "dependencies": {
   "type": "object",
   "additionalProperties": {
    "anyOf": [
     {
      "$ref": "#"
     },
     {
      "$ref": "#/definitions/stringArray"
     }
    ]
   }
  },
  "propertyNames": {
   "$ref": "#"
  },
  "const": {},
  "enum": {
   "type": "array"
  },
  "type": {
   "anyOf": [
    {
     "$ref": "#/definitions/simpleTypes"
    },
    {
     "type": "array",
     "items": {
      "$ref": "#/definitions/simpleTypes"
     },
     "minItems": 1,
     "uniqueItems": true
    }
   ]
  },
  "format": {
   "type": "string"
  },
  "allOf": {
   "$ref": "#/definitions/schemaArray"
  },
  "anyOf": {
   "$ref": "#/definitions/schemaArray"
  },
  "oneOf": {
   "$ref": "#/definitions/schemaArray"
  },
  "not": {
   "$ref": "#"
  }
 },
 "default": {}
})json";

const char* const kDraft7MetaSchema = R"json({
 "$schema": "http://json-schema.org/draft-07/schema#",
 "$id": "http://json-schema.org/draft-07/schema#",
 "title": "Core schema meta-schema",
 "definitions": {
  "schemaArray": {
   "type": "array",
   "minItems": 1,
   "items": {
    "$ref": "#"
   }
  },
  "nonNegativeInteger": {
   "type": "integer",
   "minimum": 0
  },
  "nonNegativeIntegerDefault0": {
   "allOf": [
    {
     "$ref": "#/definitions/nonNegativeInteger"
    },
    {
     "default": 0
    }
   ]
  },
  "simpleTypes": {
   "enum": [
    "array",
    "boolean",
    "integer",
    "null",
    "number",
    "object",
    "string"
   ]
  },
  "stringArray": {
   "type": "array",
   "items": {
    "type": "string"
   },
   "uniqueItems": true,
   "default": []
  }
 },
 "type": [
  "object",
  "boolean"
 ],
 "properties": {
  "$id": {
   "type": "string",
   "format": "uri-reference"
  },
  "$schema": {
   "type": "string",
   "format": "uri"
  },
  "$ref": {
   "type": "string",
   "format": "uri-reference"
  },
  "$comment": {
   "type": "string"
  },
  "title": {
   "type": "string"
  },
  "description": {
   "type": "string"
  },
  "default": true,
  "readOnly": {
   "type": "boolean",
   "default": false
  },
  "examples": {
   "type": "array",
   "items": true
  },
  "multipleOf": {
   "type": "number",
   "exclusiveMinimum": 0
  },
  "maximum": {
   "type": "number"
  },
  "exclusiveMaximum": {
   "type": "number"
  },
  "minimum": {
   "type": "number"
  },
  "exclusiveMinimum": {
   "type": "number"
  },
  "maxLength": {
   "$ref": "#/definitions/nonNegativeInteger"
  },
  "minLength": {
   "$ref": "#/definitions/nonNegativeIntegerDefault0"
  },
  "pattern": {
   "type": "string",
   "format": "regex"
  },
  "additionalItems": {
   "$ref": "#"
  },
  "items": {
   "anyOf": [
    {
     "$ref": "#"
    },
    {
     "$ref": "#/definitions/schemaArray"
    }
   ],
   "default": true
  },
  "maxItems": {
   "$ref": "#/definitions/nonNegativeInteger"
  },
  "minItems": {
   "$ref": "#/definitions/nonNegativeIntegerDefault0"
  },
  "uniqueItems": {
   "type": "boolean",
   "default": false
  },
  "contains": {
   "$ref": "#"
  },
  "maxProperties": {
   "$ref": "#/definitions/nonNegativeInteger"
  },
  "minProperties": {
   "$ref": "#/definitions/nonNegativeIntegerDefault0"
  },
  "required": {
   "$ref": "#/definitions/stringArray"
  },
  "additionalProperties": {
   "$ref": "#"
  },
  "definitions": {
   "type": "object",
   "additionalProperties": {
    "$ref": "#"
   },
   "default": {}
  },
  "properties": {
   "type": "object",
   "additionalProperties": {
    "$ref": "#"
   },
   "default": {}
  },
  "patternProperties": {
   "type": "object",
   "additionalProperties": {
    "$ref": "#"
   },
   "propertyNames": {
    "format": "regex"
   },
   "default": {}
  },
  "dependencies": {
   "type": "object",
   "additionalProperties": {
    "anyOf": [
     {
      "$ref": "#"
     },
     {
      "$ref": "#/definitions/stringArray"
     }
    ]
   }
  },
  "propertyNames": {
   "$ref": "#"
  },
  "const": true,
  "enum": {
   "type": "array",
   "items": true
  },
  "type": {
   "anyOf": [
    {
     "$ref": "#/definitions/simpleTypes"
    },
    {
     "type": "array",
     "items": {
      "$ref": "#/definitions/simpleTypes"
     },
     "minItems": 1,
     "uniqueItems": true
    }
   ]
  },
  "format": {
   "type": "string"
  },
  "contentMediaType": {
   "type": "string"
  },
  "contentEncoding": {
   "type": "string"
  },
  "if": {
   "$ref": "#"
  },
  "then": {
   "$ref": "#"
  },
  "else": {
   "$ref": "#"
  },
  "allOf": {
   "$ref": "#/definitions/schemaArray"
  },
  "anyOf": {
   "$ref": "#/definitions/schemaArray"
  },
  "oneOf": {
   "$ref": "#/definitions/schemaArray"
  },
  "not": {
   "$ref": "#"
  }
 },
 "default": true
})json";

const char* const kDraft2020MetaSchema = R"json({
 "$schema": "https://json-schema.org/draft/2020-12/schema",
 "$id": "https://json-schema.org/draft/2020-12/schema",
 "title": "Sindri 2020-12 meta-schema (draft-07 meta-schema plus the 2019-09/2020-12 keywords Sindri implements)",
 "definitions": {
  "schemaArray": {
   "type": "array",
   "minItems": 1,
   "items": {
    "$ref": "#"
   }
  },
  "nonNegativeInteger": {
   "type": "integer",
   "minimum": 0
  },
  "nonNegativeIntegerDefault0": {
   "allOf": [
    {
     "$ref": "#/definitions/nonNegativeInteger"
    },
    {
     "default": 0
    }
   ]
  },
  "simpleTypes": {
   "enum": [
    "array",
    "boolean",
    "integer",
    "null",
    "number",
    "object",
    "string"
   ]
  },
  "stringArray": {
   "type": "array",
   "items": {
    "type": "string"
   },
   "uniqueItems": true,
   "default": []
  }
 },
 "type": [
  "object",
  "boolean"
 ],
 "properties": {
  "$anchor": {
   "type": "string",
   "pattern": "^[A-Za-z_][-A-Za-z0-9._]*$"
  },
  "$comment": {
   "type": "string"
  },
  "$defs": {
   "type": "object",
   "additionalProperties": {
    "$ref": "#"
   },
   "default": {}
  },
  "$dynamicAnchor": {
   "type": "string",
   "pattern": "^[A-Za-z_][-A-Za-z0-9._]*$"
  },
  "$dynamicRef": {
   "type": "string",
   "format": "uri-reference"
  },
  "$id": {
   "type": "string",
   "format": "uri-reference"
  },
  "$recursiveAnchor": {
   "type": "boolean"
  },
  "$recursiveRef": {
   "type": "string",
   "format": "uri-reference"
  },
  "$ref": {
   "type": "string",
   "format": "uri-reference"
  },
  "$schema": {
   "type": "string",
   "format": "uri"
  },
  "$vocabulary": {
   "type": "object",
   "propertyNames": {
    "type": "string",
    "format": "uri"
   },
   "additionalProperties": {
    "type": "boolean"
   }
  },
  "additionalItems": {
   "$ref": "#"
  },
  "additionalProperties": {
   "$ref": "#"
  },
  "allOf": {
   "$ref": "#/definitions/schemaArray"
  },
  "anyOf": {
   "$ref": "#/definitions/schemaArray"
  },
  "const": true,
  "contains": {
   "$ref": "#"
  },
  "contentEncoding": {
   "type": "string"
  },
  "contentMediaType": {
   "type": "string"
  },
  "contentSchema": {
   "$ref": "#"
  },
  "default": true,
  "definitions": {
   "type": "object",
   "additionalProperties": {
    "$ref": "#"
   },
   "default": {}
  },
  "dependencies": {
   "type": "object",
   "additionalProperties": {
    "anyOf": [
     {
      "$ref": "#"
     },
     {
      "$ref": "#/definitions/stringArray"
     }
    ]
   }
  },
  "dependentRequired": {
   "type": "object",
   "additionalProperties": {
    "$ref": "#/definitions/stringArray"
   }
  },
  "dependentSchemas": {
   "type": "object",
   "additionalProperties": {
    "$ref": "#"
   }
  },
  "deprecated": {
   "type": "boolean",
   "default": false
  },
  "description": {
   "type": "string"
  },
  "else": {
   "$ref": "#"
  },
  "enum": {
   "type": "array",
   "items": true
  },
  "examples": {
   "type": "array",
   "items": true
  },
  "exclusiveMaximum": {
   "type": "number"
  },
  "exclusiveMinimum": {
   "type": "number"
  },
  "format": {
   "type": "string"
  },
  "if": {
   "$ref": "#"
  },
  "items": {
   "anyOf": [
    {
     "$ref": "#"
    },
    {
     "$ref": "#/definitions/schemaArray"
    }
   ],
   "default": true
  },
  "maxContains": {
   "$ref": "#/definitions/nonNegativeInteger"
  },
  "maxItems": {
   "$ref": "#/definitions/nonNegativeInteger"
  },
  "maxLength": {
   "$ref": "#/definitions/nonNegativeInteger"
  },
  "maxProperties": {
   "$ref": "#/definitions/nonNegativeInteger"
  },
  "maximum": {
   "type": "number"
  },
  "minContains": {
   "$ref": "#/definitions/nonNegativeInteger"
  },
  "minItems": {
   "$ref": "#/definitions/nonNegativeIntegerDefault0"
  },
  "minLength": {
   "$ref": "#/definitions/nonNegativeIntegerDefault0"
  },
  "minProperties": {
   "$ref": "#/definitions/nonNegativeIntegerDefault0"
  },
  "minimum": {
   "type": "number"
  },
  "multipleOf": {
   "type": "number",
   "exclusiveMinimum": 0
  },
  "not": {
   "$ref": "#"
  },
  "oneOf": {
   "$ref": "#/definitions/schemaArray"
  },
  "pattern": {
   "type": "string",
   "format": "regex"
  },
  "patternProperties": {
   "type": "object",
   "additionalProperties": {
    "$ref": "#"
   },
   "propertyNames": {
    "format": "regex"
   },
   "default": {}
  },
  "prefixItems": {
   "$ref": "#/definitions/schemaArray"
  },
  "properties": {
   "type": "object",
   "additionalProperties": {
    "$ref": "#"
   },
   "default": {}
  },
  "propertyNames": {
   "$ref": "#"
  },
  "readOnly": {
   "type": "boolean",
   "default": false
  },
  "required": {
   "$ref": "#/definitions/stringArray"
  },
  "then": {
   "$ref": "#"
  },
  "title": {
   "type": "string"
  },
  "type": {
   "anyOf": [
    {
     "$ref": "#/definitions/simpleTypes"
    },
    {
     "type": "array",
     "items": {
      "$ref": "#/definitions/simpleTypes"
     },
     "minItems": 1,
     "uniqueItems": true
    }
   ]
  },
  "unevaluatedItems": {
   "$ref": "#"
  },
  "unevaluatedProperties": {
   "$ref": "#"
  },
  "uniqueItems": {
   "type": "boolean",
   "default": false
  }
 },
 "default": true
})json";

}  // namespace sindri::schema
