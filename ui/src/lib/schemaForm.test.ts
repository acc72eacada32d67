import { describe, expect, it } from "vitest";
import {
  buildUiSchema,
  COLLAPSE_ABOVE,
  countErrors,
  fillDefaults,
  parseParametersSchema,
  pointerTokens,
  SchemaTextError,
  violationsToErrorTree,
  type JsonSchema,
} from "./schemaForm";

const SCHEMA: JsonSchema = {
  type: "object",
  required: ["name", "replicas"],
  properties: {
    name: { type: "string", description: "The app's name", default: "web" },
    replicas: { type: "integer", minimum: 1, default: 2 },
    image: {
      type: "object",
      required: ["repository"],
      properties: {
        repository: { type: "string", default: "nginx" },
        tag: { type: "string" },
      },
    },
    limits: {
      type: "object",
      required: ["cpu"],
      properties: { cpu: { type: "string" } },
    },
    ports: {
      type: "array",
      items: {
        type: "object",
        properties: { port: { type: "integer", maximum: 65535 }, protocol: { type: "string", default: "TCP" } },
      },
    },
    "a/b~c": { type: "string" },
    env: { type: "object", additionalProperties: { type: "string" } },
    shared: { $ref: "#/$defs/shared" },
  },
  $defs: { shared: { type: "object", properties: { level: { type: "string", default: "info" } } } },
};

describe("parseParametersSchema", () => {
  it("parses the stored text and drops the root $schema that the form's ajv would refuse", () => {
    const schema = parseParametersSchema(
      JSON.stringify({ $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: {} }),
    );
    expect(schema).toEqual({ type: "object", properties: {} });
  });

  it("calls a root with properties but no type an object", () => {
    expect(parseParametersSchema('{"properties": {"a": {}}}').type).toBe("object");
  });

  it("refuses text that is not JSON, and a root that is not an object", () => {
    expect(() => parseParametersSchema("type: object")).toThrow(SchemaTextError);
    expect(() => parseParametersSchema("[1, 2]")).toThrow("not a JSON object");
  });
});

describe("buildUiSchema", () => {
  it("gives descriptions as help text, nested too", () => {
    const ui = buildUiSchema({
      type: "object",
      properties: {
        name: { type: "string", description: "The app's name" },
        image: { type: "object", properties: { tag: { type: "string", description: "Which tag" } } },
        ports: { type: "array", items: { type: "object", properties: { port: { description: "TCP port" } } } },
      },
    });
    expect(ui).toEqual({
      name: { "ui:help": "The app's name" },
      image: { tag: { "ui:help": "Which tag" } },
      ports: { items: { port: { "ui:help": "TCP port" } } },
    });
  });

  it("collapses a large nested object but never the root", () => {
    const properties = Object.fromEntries(
      Array.from({ length: COLLAPSE_ABOVE + 1 }, (_, index) => [`p${index}`, { type: "string" }]),
    );
    const ui = buildUiSchema({ type: "object", properties: { big: { type: "object", properties }, ...properties } });
    expect(ui["ui:collapsed"]).toBeUndefined();
    expect(ui.big).toEqual({ "ui:collapsed": true });
  });

  it("follows $ref and stops at a recursive one", () => {
    const ui = buildUiSchema({
      type: "object",
      properties: { node: { $ref: "#/$defs/node" } },
      $defs: {
        node: { type: "object", description: "A node", properties: { child: { $ref: "#/$defs/node" } } },
      },
    });
    expect(ui).toEqual({ node: { "ui:help": "A node", child: { "ui:help": "A node" } } });
  });
});

describe("fillDefaults", () => {
  it("fills the defaults of missing properties, nested objects and $refs included", () => {
    expect(fillDefaults(SCHEMA)).toEqual({
      name: "web",
      replicas: 2,
      image: { repository: "nginx" },
      shared: { level: "info" },
    });
  });

  it("keeps what is there and fills the rest, array items included", () => {
    expect(fillDefaults(SCHEMA, { replicas: 5, image: { tag: "1.27" }, ports: [{ port: 80 }, { protocol: "UDP" }] })).toEqual({
      name: "web",
      replicas: 5,
      image: { repository: "nginx", tag: "1.27" },
      ports: [{ port: 80, protocol: "TCP" }, { protocol: "UDP" }],
      shared: { level: "info" },
    });
  });

  it("makes a required nested object even without defaults in it, not an optional one", () => {
    const schema: JsonSchema = {
      type: "object",
      required: ["needed"],
      properties: {
        needed: { type: "object", properties: { a: { type: "string" } } },
        optional: { type: "object", required: ["b"], properties: { b: { type: "string" } } },
      },
    };
    expect(fillDefaults(schema)).toEqual({ needed: {} });
  });

  it("copies a default rather than sharing it", () => {
    const schema: JsonSchema = { type: "object", properties: { tags: { type: "array", default: ["a"] } } };
    const first = fillDefaults(schema);
    (first.tags as string[]).push("b");
    expect(fillDefaults(schema)).toEqual({ tags: ["a"] });
  });
});

describe("pointerTokens", () => {
  it("splits and unescapes ~1 and ~0, in that order", () => {
    expect(pointerTokens("")).toEqual([]);
    expect(pointerTokens("/a~1b/~01/0")).toEqual(["a/b", "~1", "0"]);
  });
});

describe("violationsToErrorTree", () => {
  it("puts a violation on the field its pointer names", () => {
    const tree = violationsToErrorTree(SCHEMA, [
      { pointer: "/parameters/replicas", schema_pointer: "/properties/replicas/minimum", message: "must be at least 1, got 0" },
    ]);
    expect(tree).toEqual({ replicas: { __errors: ["must be at least 1, got 0"] } });
  });

  it("follows nested objects and array indices", () => {
    const tree = violationsToErrorTree(SCHEMA, [
      { pointer: "/parameters/image/tag", message: "must be a string" },
      { pointer: "/parameters/ports/1/port", message: "must be at most 65535, got 70000" },
      { pointer: "/parameters/ports/1/port", message: "second" },
    ]);
    expect(tree).toEqual({
      image: { tag: { __errors: ["must be a string"] } },
      ports: { "1": { port: { __errors: ["must be at most 65535, got 70000", "second"] } } },
    });
  });

  it("puts root-level violations on the form as a whole", () => {
    const tree = violationsToErrorTree(SCHEMA, [
      { pointer: "/parameters", message: "must be an object" },
      { pointer: "", message: "no pointer at all" },
      { message: "none given" },
    ]);
    expect(tree).toEqual({ __errors: ["must be an object", "no pointer at all", "none given"] });
  });

  it("moves a missing required property onto the property's own field", () => {
    const tree = violationsToErrorTree(SCHEMA, [
      { pointer: "/parameters", message: "missing required property `replicas`" },
      { pointer: "/parameters/limits", message: "missing required property `cpu`" },
    ]);
    expect(tree).toEqual({
      replicas: { __errors: ["missing required property `replicas`"] },
      limits: { cpu: { __errors: ["missing required property `cpu`"] } },
    });
  });

  it("keeps an unknown pointer on its deepest known field, naming the rest", () => {
    const tree = violationsToErrorTree(SCHEMA, [
      { pointer: "/parameters/image/digest", message: "is not allowed" },
      { pointer: "/parameters/nonsense/deeper", message: "is not allowed" },
      { pointer: "/template_content", message: "elsewhere" },
    ]);
    expect(tree).toEqual({
      __errors: ["nonsense/deeper: is not allowed", "/template_content: elsewhere"],
      image: { __errors: ["digest: is not allowed"] },
    });
  });

  it("unescapes ~1 and ~0 in property names, and escapes them again when naming the rest", () => {
    const tree = violationsToErrorTree(SCHEMA, [
      { pointer: "/parameters/a~1b~0c", message: "too long" },
      { pointer: "/parameters/x~1y", message: "unknown" },
    ]);
    expect(tree).toEqual({ "a/b~c": { __errors: ["too long"] }, __errors: ["x~1y: unknown"] });
  });

  it("follows additionalProperties and $ref", () => {
    const tree = violationsToErrorTree(SCHEMA, [
      { pointer: "/parameters/env/HOME", message: "must be a string" },
      { pointer: "/parameters/shared/level", message: "must be one of debug, info" },
    ]);
    expect(tree).toEqual({
      env: { HOME: { __errors: ["must be a string"] } },
      shared: { level: { __errors: ["must be one of debug, info"] } },
    });
  });

  it("counts the messages of a tree", () => {
    expect(
      countErrors(
        violationsToErrorTree(SCHEMA, [
          { pointer: "/parameters", message: "a" },
          { pointer: "/parameters/ports/0/port", message: "b" },
          { pointer: "/parameters/ports/0/port", message: "c" },
        ]),
      ),
    ).toBe(3);
  });
});
