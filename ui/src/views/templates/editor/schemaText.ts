// The parameter schema as the author edits it, YAML or JSON, and as the
// broker takes it: a JSON string. YAML is a superset of JSON, so one parser
// reads both and finds where a JSON pointer lands in either.
import { isMap, isScalar, isSeq, LineCounter, parseDocument, stringify, visit, type Node } from "yaml";

export type SchemaFormat = "yaml" | "json";

export interface Place {
  line: number;
  column: number;
}

export interface SchemaProblem {
  message: string;
  place?: Place;
}

function parse(text: string) {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  return { document, lines };
}

function firstError(text: string): SchemaProblem | undefined {
  const { document, lines } = parse(text);
  const error = document.errors[0];
  if (!error) return undefined;
  const at = lines.linePos(error.pos[0]);
  return { message: error.message.split("\n")[0], place: { line: at.line, column: at.col } };
}

// A stored schema as the editor first shows it, and the stored text itself:
// while the author leaves the schema alone, the broker gets that text back
// unchanged (not a conversion of a conversion).
export interface InitialSchema {
  text: string;
  format: SchemaFormat;
  stored: string;
}

// The JSON string for the broker. JSON is sent as written, so the broker's
// line and column point into the author's text; YAML is converted. A schema
// the author did not change is sent as it was stored.
export function schemaForBroker(
  text: string,
  format: SchemaFormat,
  initial?: InitialSchema,
): { json: string } | { problem: SchemaProblem } {
  if (initial && text === initial.text && format === initial.format) return { json: initial.stored };
  if (format === "json") return { json: text };
  // Blank is sent as empty, for the broker to say so, not as YAML's null.
  if (text.trim() === "") return { json: "" };
  const problem = firstError(text);
  if (problem) return { problem };
  return { json: JSON.stringify(parse(text).document.toJS() ?? null, null, 2) };
}

// The same schema in the other format; a text that does not parse stays as
// it is and says why.
export function convertSchema(text: string, to: SchemaFormat): { text: string } | { problem: SchemaProblem } {
  if (to === "json") {
    const converted = schemaForBroker(text, "yaml");
    return "json" in converted ? { text: converted.json } : converted;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: { message: `not JSON: ${(error as Error).message}` } };
  }
  if (hasUnsafeInteger(text)) {
    return { problem: { message: "it has an integer beyond 2^53, which converting would round" } };
  }
  return { text: stringify(value) };
}

// JavaScript numbers hold integers exactly only up to 2^53.
function hasUnsafeInteger(text: string): boolean {
  let unsafe = false;
  visit(parseDocument(text, { intAsBigInt: true }), {
    Scalar(_, node) {
      if (typeof node.value === "bigint" && !Number.isSafeInteger(Number(node.value))) unsafe = true;
    },
  });
  return unsafe;
}

// The schema shown in YAML when it converts from JSON without loss (the
// broker stores JSON), else as it is, in JSON.
export function initialSchema(stored: string): InitialSchema {
  const converted = convertSchema(stored, "yaml");
  return "text" in converted
    ? { text: converted.text, format: "yaml", stored }
    : { text: stored, format: "json", stored };
}

function unescapeSegment(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

// Where a JSON pointer ("/properties/port/type") lands in the text: its
// node, or the deepest ancestor the text has.
export function locatePointer(text: string, pointer: string): Place | undefined {
  const { document, lines } = parse(text);
  let node: unknown = document.contents;
  let found: Node | undefined = isMap(node) || isSeq(node) || isScalar(node) ? (node as Node) : undefined;
  const segments = pointer === "" ? [] : pointer.split("/").slice(1).map(unescapeSegment);
  for (const segment of segments) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === segment);
      if (!pair) break;
      node = pair.value;
      found = (isMap(node) || isSeq(node) || isScalar(node) ? node : pair.key) as Node;
    } else if (isSeq(node)) {
      const item = node.items[Number(segment)];
      if (item === undefined) break;
      node = item;
      if (isMap(node) || isSeq(node) || isScalar(node)) found = node as Node;
    } else {
      break;
    }
  }
  if (!found?.range) return undefined;
  const at = lines.linePos(found.range[0]);
  return { line: at.line, column: at.col };
}
