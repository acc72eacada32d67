// Between a template's stored parameters_schema and the parameter form:
// the schema rjsf draws, its uiSchema, the defaults filled in, and the
// broker's violations placed beside the fields they name. Pure, so that it
// is tested without a browser; the form itself lives in Instantiate.tsx.

export type JsonSchema = { [keyword: string]: unknown };
export type UiNode = { [key: string]: unknown };

// rjsf's ErrorSchema: messages under __errors, children by property name or
// array index.
export interface ErrorTree {
  __errors?: string[];
  [child: string]: ErrorTree | string[] | undefined;
}

export interface BrokerViolation {
  pointer?: string;
  schema_pointer?: string;
  message: string;
}

export class SchemaTextError extends Error {}

// A nested object with more properties than this starts collapsed.
export const COLLAPSE_ABOVE = 6;

const isObject = (value: unknown): value is JsonSchema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

// The stored text is JSON (the broker refuses anything else) whose root is an
// object schema. rjsf's ajv speaks draft 7: a root `$schema` naming a later
// draft would make it refuse the whole schema, and the broker validates
// authoritatively anyway, so the form's copy drops it.
export function parseParametersSchema(text: string): JsonSchema {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new SchemaTextError(`the parameters schema is not JSON: ${(cause as Error).message}`);
  }
  if (!isObject(parsed)) throw new SchemaTextError("the parameters schema is not a JSON object");
  const { $schema: _draft, ...schema } = parsed;
  if (schema.type === undefined && schema.properties !== undefined) schema.type = "object";
  return schema;
}

// A local "#/..." reference followed to its schema; anything else as given.
function resolveRef(root: JsonSchema, schema: JsonSchema): JsonSchema {
  let current = schema;
  for (let hops = 0; hops < 32 && typeof current.$ref === "string" && current.$ref.startsWith("#"); hops++) {
    let target: unknown = root;
    for (const token of pointerTokens(current.$ref.slice(1))) {
      target = isObject(target) || Array.isArray(target) ? (target as Record<string, unknown>)[token] : undefined;
    }
    if (!isObject(target)) break;
    current = target;
  }
  return current;
}

// The schema of child `token` (a property name or an array index) of
// `schema`, or undefined when the schema does not describe one.
function childSchema(root: JsonSchema, schema: JsonSchema, token: string): JsonSchema | undefined {
  const parent = resolveRef(root, schema);
  const properties = parent.properties;
  if (isObject(properties) && isObject(properties[token])) return resolveRef(root, properties[token]);
  if (/^(0|[1-9][0-9]*)$/.test(token)) {
    const index = Number(token);
    if (Array.isArray(parent.prefixItems) && isObject(parent.prefixItems[index])) {
      return resolveRef(root, parent.prefixItems[index]);
    }
    if (Array.isArray(parent.items) && isObject(parent.items[index])) return resolveRef(root, parent.items[index]);
    if (isObject(parent.items)) return resolveRef(root, parent.items);
  }
  if (isObject(parent.additionalProperties)) return resolveRef(root, parent.additionalProperties);
  return undefined;
}

// rjsf's uiSchema: each description as the field's help text (the form
// draws descriptions as plain text otherwise), large nested objects
// collapsed (`ui:collapsed`, read by the form's object template).
export function buildUiSchema(schema: JsonSchema): UiNode {
  const walk = (node: JsonSchema, depth: number, seen: Set<JsonSchema>): UiNode => {
    const resolved = resolveRef(schema, node);
    const ui: UiNode = {};
    if (depth > 0 && typeof resolved.description === "string") ui["ui:help"] = resolved.description;
    const properties = isObject(resolved.properties) ? resolved.properties : {};
    const names = Object.keys(properties);
    if (depth > 0 && names.length > COLLAPSE_ABOVE) ui["ui:collapsed"] = true;
    // A recursive schema's second visit gets its own hints, not its children's.
    if (seen.has(resolved)) return ui;
    const inner = new Set(seen).add(resolved);
    for (const name of names) {
      const child = properties[name];
      if (!isObject(child)) continue;
      const childUi = walk(child, depth + 1, inner);
      if (Object.keys(childUi).length > 0) ui[name] = childUi;
    }
    if (isObject(resolved.items)) {
      const itemsUi = walk(resolved.items, depth + 1, inner);
      if (Object.keys(itemsUi).length > 0) ui.items = itemsUi;
    }
    return ui;
  };
  return walk(schema, 0, new Set());
}

const clone = <T>(value: T): T => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T));

// `value` with every default the schema gives filled in where the value has
// nothing. A nested object is made only when it is required or something in
// it has a default (an empty optional object could violate its own
// `required`).
export function fillDefaults(schema: JsonSchema, value?: unknown): Record<string, unknown> {
  const filled = fill(schema, schema, value, new Set());
  return isObject(filled) ? filled : {};
}

function fill(root: JsonSchema, node: JsonSchema, value: unknown, seen: Set<JsonSchema>): unknown {
  const schema = resolveRef(root, node);
  if (value === undefined && schema.default !== undefined) value = clone(schema.default);
  if (seen.has(schema)) return value;
  const inner = new Set(seen).add(schema);
  if (isObject(schema.properties) && (value === undefined || isObject(value))) {
    const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
    const result: Record<string, unknown> = { ...((value as Record<string, unknown>) ?? {}) };
    for (const [name, child] of Object.entries(schema.properties)) {
      if (!isObject(child)) continue;
      const childValue = fill(root, child, result[name], inner);
      if (childValue === undefined) continue;
      const made = result[name] === undefined;
      const emptyObject = isObject(childValue) && Object.keys(childValue).length === 0;
      if (made && emptyObject && !required.includes(name)) continue;
      result[name] = childValue;
    }
    return result;
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => {
      const itemSchema = childSchema(root, schema, String(index));
      return itemSchema ? fill(root, itemSchema, item, inner) : item;
    });
  }
  return value;
}

// "/a~1b/0" to ["a/b", "0"] (RFC 6901).
export function pointerTokens(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
}

const PARAMETERS = "/parameters";
const MISSING_PROPERTY = /^missing required property `(.+)`$/;

// The broker's violations (400 invalid_parameters: pointers under
// /parameters) as rjsf's extraErrors. Each lands on the deepest field of
// the form its pointer reaches; the rest of a pointer the form does not
// draw is kept in the message. A missing required property is reported on
// the object holding it, so it is moved onto the property's own field. A
// pointer outside /parameters, or none, lands on the form as a whole.
export function violationsToErrorTree(schema: JsonSchema, violations: BrokerViolation[]): ErrorTree {
  const tree: ErrorTree = {};
  for (const violation of violations) {
    const pointer = violation.pointer ?? "";
    const underParameters = pointer === PARAMETERS || pointer.startsWith(PARAMETERS + "/");
    if (!underParameters) {
      addError(tree, [], pointer ? `${pointer}: ${violation.message}` : violation.message);
      continue;
    }
    const tokens = pointerTokens(pointer.slice(PARAMETERS.length));
    const missing = MISSING_PROPERTY.exec(violation.message);
    if (missing) tokens.push(missing[1]);
    const placed: string[] = [];
    let node: JsonSchema | undefined = schema;
    for (const token of tokens) {
      node = node && childSchema(schema, node, token);
      if (!node) break;
      placed.push(token);
    }
    const rest = tokens.slice(placed.length);
    const message = rest.length
      ? `${rest.map((token) => token.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}: ${violation.message}`
      : violation.message;
    addError(tree, placed, message);
  }
  return tree;
}

function addError(tree: ErrorTree, path: string[], message: string): void {
  let node = tree;
  for (const token of path) {
    const next = node[token];
    if (next === undefined || Array.isArray(next)) node[token] = {};
    node = node[token] as ErrorTree;
  }
  (node.__errors ??= []).push(message);
}

// How many messages a tree holds.
export function countErrors(tree: ErrorTree): number {
  let count = 0;
  for (const [key, child] of Object.entries(tree)) {
    if (key === "__errors" && Array.isArray(child)) count += child.length;
    else if (child && !Array.isArray(child)) count += countErrors(child);
  }
  return count;
}
