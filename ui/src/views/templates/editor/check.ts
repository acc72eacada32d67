// POST /templates/check: every problem of a template's content and schema,
// nothing stored. Problems come back placed in the author's own text, the
// schema's too when it is edited as YAML and sent converted.
import { post } from "../../../api";
import { locatePointer, schemaForBroker, type InitialSchema, type Place, type SchemaFormat } from "./schemaText";

export type EditorField = "template_content" | "parameters_schema";

interface CheckProblem {
  field: EditorField;
  code: string;
  message: string;
  line?: number;
  column?: number;
  pointer?: string;
  expression?: string;
}

interface CheckResult {
  valid: boolean;
  problems: CheckProblem[];
}

export interface EditorProblem {
  field: EditorField;
  code: string;
  message: string;
  place?: Place;
  pointer?: string;
  expression?: string;
}

export function placeProblem(problem: CheckProblem, schemaText: string, format: SchemaFormat): EditorProblem {
  const placed: EditorProblem = {
    field: problem.field,
    code: problem.code,
    message: problem.message,
    pointer: problem.pointer,
    expression: problem.expression,
  };
  // A schema sent as YAML-turned-JSON has line numbers of a text the author
  // never saw; its pointer still names the place.
  const linesAreTheAuthors = problem.field === "template_content" || format === "json";
  if (linesAreTheAuthors && problem.line) {
    placed.place = { line: problem.line, column: problem.column ?? 1 };
  } else if (problem.field === "parameters_schema" && problem.pointer !== undefined) {
    placed.place = locatePointer(schemaText, problem.pointer);
  }
  return placed;
}

function byPlace(a: EditorProblem, b: EditorProblem): number {
  if (a.field !== b.field) return a.field === "template_content" ? -1 : 1;
  return (a.place?.line ?? 0) - (b.place?.line ?? 0) || (a.place?.column ?? 0) - (b.place?.column ?? 0);
}

// What is being checked: the editor's two texts, and for an existing
// template its name (the broker's messages name it) and its stored schema.
export interface CheckInput {
  content: string;
  schemaText: string;
  format: SchemaFormat;
  name?: string;
  initialSchema?: InitialSchema;
}

export async function checkTemplate({
  content,
  schemaText,
  format,
  name,
  initialSchema,
}: CheckInput): Promise<EditorProblem[]> {
  const body: { name?: string; template_content: string; parameters_schema?: string } = { template_content: content };
  if (name) body.name = name;
  const problems: EditorProblem[] = [];
  const schema = schemaForBroker(schemaText, format, initialSchema);
  if ("json" in schema) {
    body.parameters_schema = schema.json;
  } else {
    problems.push({
      field: "parameters_schema",
      code: "invalid_parameters_schema",
      message: schema.problem.message,
      place: schema.problem.place,
    });
  }
  const result = await post<CheckResult>("/templates/check", body);
  problems.push(...result.problems.map((problem) => placeProblem(problem, schemaText, format)));
  return problems.sort(byPlace);
}
