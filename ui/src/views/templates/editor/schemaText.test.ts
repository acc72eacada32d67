import { describe, expect, it } from "vitest";
import { placeProblem } from "./check";
import { convertSchema, initialSchema, locatePointer, schemaForBroker } from "./schemaText";

const YAML_SCHEMA = `type: object
properties:
  port:
    type: integr
  tags:
    type: array
    items:
      - type: string
`;

describe("schemaForBroker", () => {
  it("sends JSON as written", () => {
    expect(schemaForBroker('{"type":"object"}', "json")).toEqual({ json: '{"type":"object"}' });
  });

  it("converts YAML to a JSON string", () => {
    const converted = schemaForBroker("type: object\nrequired: [a]\n", "yaml");
    expect("json" in converted && JSON.parse(converted.json)).toEqual({ type: "object", required: ["a"] });
  });

  it("sends a blank YAML schema as empty, not as null", () => {
    expect(schemaForBroker("  \n", "yaml")).toEqual({ json: "" });
  });

  it("places a YAML syntax error at its line and column", () => {
    const converted = schemaForBroker("type: object\nproperties:\n  a: [1, 2\n", "yaml");
    expect("problem" in converted && converted.problem.place?.line).toBeGreaterThanOrEqual(3);
  });
});

describe("convertSchema", () => {
  it("goes from JSON to YAML and back to the same value", () => {
    const json = '{"type":"object","properties":{"a":{"type":"string"}}}';
    const yaml = convertSchema(json, "yaml");
    expect("text" in yaml && yaml.text).toContain("properties:\n  a:\n    type: string");
    const back = "text" in yaml ? convertSchema(yaml.text, "json") : yaml;
    expect("text" in back && JSON.parse(back.text)).toEqual(JSON.parse(json));
  });

  it("refuses to turn text that is not JSON into YAML", () => {
    expect(convertSchema("{oops", "yaml")).toHaveProperty("problem");
  });

  it("shows a stored schema as YAML, or as it is when it is not JSON", () => {
    expect(initialSchema('{"type":"object"}')).toEqual({ text: "type: object\n", format: "yaml", stored: '{"type":"object"}' });
    expect(initialSchema("{oops")).toEqual({ text: "{oops", format: "json", stored: "{oops" });
  });

  it("keeps a schema whose integers JavaScript would round as JSON", () => {
    const stored = '{"type":"integer","maximum":18446744073709551615}';
    expect(initialSchema(stored)).toEqual({ text: stored, format: "json", stored });
    expect(convertSchema(stored, "yaml")).toHaveProperty("problem");
    expect(initialSchema('{"maximum":9007199254740991}').format).toBe("yaml");
  });
});

describe("schemaForBroker with a stored schema", () => {
  const stored = '{ "type": "object",  "properties": {} }';
  const initial = initialSchema(stored);

  it("sends the stored text unchanged while the author leaves it alone", () => {
    expect(schemaForBroker(initial.text, initial.format, initial)).toEqual({ json: stored });
  });

  it("sends the author's text once it changed", () => {
    const converted = schemaForBroker(`${initial.text}required: [a]\n`, initial.format, initial);
    expect("json" in converted && JSON.parse(converted.json)).toEqual({ type: "object", properties: {}, required: ["a"] });
  });
});

describe("locatePointer", () => {
  it("finds a node of a YAML schema", () => {
    expect(locatePointer(YAML_SCHEMA, "/properties/port/type")).toEqual({ line: 4, column: 11 });
    expect(locatePointer(YAML_SCHEMA, "/properties/tags/items/0/type")).toEqual({ line: 8, column: 15 });
  });

  it("finds a node of a JSON schema", () => {
    const json = '{\n  "type": "object",\n  "properties": {\n    "a": {"type": 5}\n  }\n}';
    expect(locatePointer(json, "/properties/a/type")).toEqual({ line: 4, column: 19 });
  });

  it("falls back to the deepest ancestor the text has", () => {
    expect(locatePointer(YAML_SCHEMA, "/properties/port/minimum")).toEqual({ line: 4, column: 5 });
  });

  it("unescapes ~1 and ~0 in pointer segments", () => {
    expect(locatePointer("properties:\n  a/b~c: 1\n", "/properties/a~1b~0c")).toEqual({ line: 2, column: 10 });
  });
});

describe("placeProblem", () => {
  it("keeps the broker's line and column for the content and for a JSON schema", () => {
    const problem = { field: "template_content" as const, code: "invalid_template_syntax", message: "x", line: 3, column: 7 };
    expect(placeProblem(problem, "", "yaml").place).toEqual({ line: 3, column: 7 });
  });

  it("places a YAML schema's problem by its pointer, not the converted text's line", () => {
    const problem = {
      field: "parameters_schema" as const,
      code: "invalid_parameters_schema",
      message: "bad type",
      line: 5,
      column: 15,
      pointer: "/properties/port/type",
    };
    expect(placeProblem(problem, YAML_SCHEMA, "yaml").place).toEqual({ line: 4, column: 11 });
  });
});
