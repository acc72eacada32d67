// #/templates/new and #/templates/:id/edit, loaded on demand (CodeMirror
// stays out of the first load): the Tera content and the parameter schema,
// checked by the broker as the author types, saved as a new template or as
// the next version of this one.
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from "react";
import { ApiError, get, post, put, toApiError, type Identity } from "../../api";
import { ErrorBox, Loaded } from "../../components/Status";
import { href, navigate } from "../../router";
import { useSession } from "../../session";
import { useLoad } from "../../useLoad";
import { checkTemplate, type CheckInput, type EditorField, type EditorProblem } from "./editor/check";
import { CodeEditor, type CodeEditorHandle } from "./editor/CodeEditor";
import { convertSchema, initialSchema, schemaForBroker, type SchemaFormat } from "./editor/schemaText";
import type { Generator, Template } from "../../types";
import "./templates.css";

const CHECK_DELAY_MS = 300;

const STARTER_CONTENT = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name }}
data:
  replicas: "{{ replicas }}"
`;

const STARTER_SCHEMA = `type: object
properties:
  name:
    type: string
    default: example
  replicas:
    type: integer
    minimum: 1
    default: 1
required:
  - name
`;

interface CheckState {
  problems: EditorProblem[];
  checking: boolean;
  error?: ApiError;
}

// The broker's verdict on what is typed, asked once typing pauses; an
// answer to text that has changed since is dropped.
function useCheck({ content, schemaText, format, name, initialSchema }: CheckInput): CheckState {
  const [state, setState] = useState<CheckState>({ problems: [], checking: true });
  const generation = useRef(0);
  useEffect(() => {
    const mine = ++generation.current;
    setState((previous) => ({ ...previous, checking: true }));
    const timer = setTimeout(() => {
      checkTemplate({ content, schemaText, format, name, initialSchema }).then(
        (problems) => mine === generation.current && setState({ problems, checking: false }),
        (error) => mine === generation.current && setState({ problems: [], checking: false, error: toApiError(error) }),
      );
    }, CHECK_DELAY_MS);
    return () => clearTimeout(timer);
  }, [content, schemaText, format, name, initialSchema]);
  return state;
}

// An admin makes a system template or one of a generator's; a generator
// makes its own.
function OwnerField({
  identity,
  owner,
  setOwner,
}: {
  identity: Identity;
  owner: string;
  setOwner: (owner: string) => void;
}) {
  const generators = useLoad(
    () => (identity.admin ? get<Generator[]>("/generators") : Promise.resolve([])),
    [identity.admin],
  );
  if (!identity.admin) {
    return (
      <div className="field">
        <span className="field-label">Owner</span>
        <span>you (the generator signed in)</span>
      </div>
    );
  }
  return (
    <div className="field">
      <label htmlFor="template-owner">Owner</label>
      <Loaded state={generators} what="the generators">
        {(all) => (
          <select id="template-owner" value={owner} onChange={(event) => setOwner(event.target.value)}>
            <option value="">System (no generator)</option>
            {all
              .filter((generator) => !generator.is_system && !generator.deleted_at)
              .map((generator) => (
                <option key={generator.id} value={generator.id}>
                  {generator.name}
                </option>
              ))}
          </select>
        )}
      </Loaded>
    </div>
  );
}

function ProblemList({
  field,
  problems,
  onPick,
}: {
  field: EditorField;
  problems: EditorProblem[];
  onPick: (problem: EditorProblem) => void;
}) {
  if (problems.length === 0) return null;
  return (
    <ul className="problems" data-testid={`problems-${field === "template_content" ? "content" : "schema"}`}>
      {problems.map((problem, index) => (
        <li key={index}>
          <button type="button" onClick={() => onPick(problem)}>
            <span className="where">{problem.place ? `${problem.place.line}:${problem.place.column}` : "—"}</span>{" "}
            {problem.message}
            {problem.pointer && <code> at {problem.pointer}</code>}
            <span className="muted"> ({problem.code})</span>
          </button>
        </li>
      ))}
    </ul>
  );
}

function CheckStatus({ check }: { check: CheckState }) {
  let text: string;
  if (check.checking) text = "Checking…";
  else if (check.error) text = "Not checked.";
  else if (check.problems.length === 0) text = "No problems.";
  else text = check.problems.length === 1 ? "1 problem." : `${check.problems.length} problems.`;
  return (
    <p className={check.problems.length > 0 && !check.checking ? "bad" : "muted"} role="status" data-testid="check-status">
      {text}
    </p>
  );
}

function EditorForm({ template }: { template?: Template }) {
  const { identity } = useSession();
  const creating = template === undefined;
  const [name, setName] = useState("");
  const [description, setDescription] = useState(template?.description ?? "");
  const [owner, setOwner] = useState("");
  const [content, setContent] = useState(template?.template_content ?? STARTER_CONTENT);
  const [initial] = useState(() => (template ? initialSchema(template.parameters_schema) : undefined));
  const [schema, setSchema] = useState<{ text: string; format: SchemaFormat }>(() =>
    initial ? { text: initial.text, format: initial.format } : { text: STARTER_SCHEMA, format: "yaml" },
  );
  const [formatProblem, setFormatProblem] = useState<string>();
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<ApiError>();
  const contentEditor = useRef<CodeEditorHandle>(null);
  const schemaEditor = useRef<CodeEditorHandle>(null);

  const check = useCheck({
    content,
    schemaText: schema.text,
    format: schema.format,
    name: template?.name,
    initialSchema: initial,
  });
  const contentProblems = useMemo(
    () => check.problems.filter((problem) => problem.field === "template_content"),
    [check.problems],
  );
  const schemaProblems = useMemo(
    () => check.problems.filter((problem) => problem.field === "parameters_schema"),
    [check.problems],
  );
  const setSchemaText = useCallback((text: string) => setSchema((previous) => ({ ...previous, text })), []);

  function switchFormat(format: SchemaFormat) {
    if (format === schema.format) return;
    const converted = convertSchema(schema.text, format);
    if ("problem" in converted) {
      setFormatProblem(`The schema stays ${schema.format.toUpperCase()} until it parses: ${converted.problem.message}`);
      return;
    }
    setFormatProblem(undefined);
    setSchema({ text: converted.text, format });
  }

  async function save(event: FormEvent) {
    event.preventDefault();
    setSaveError(undefined);
    const converted = schemaForBroker(schema.text, schema.format, initial);
    if ("problem" in converted) {
      const where = converted.problem.place ? { line: converted.problem.place.line, column: converted.problem.place.column } : {};
      setSaveError(new ApiError(0, "invalid_parameters_schema", converted.problem.message, where));
      return;
    }
    const text = {
      ...(description.trim() ? { description: description.trim() } : {}),
      template_content: content,
      parameters_schema: converted.json,
    };
    setSaving(true);
    try {
      const saved = creating
        ? await post<Template>("/templates", {
            name: name.trim(),
            ...(identity.admin && owner ? { generator_id: owner } : {}),
            ...text,
          })
        : await put<Template>(`/templates/${template.id}`, text);
      navigate(`/templates/${saved.id}`);
    } catch (error) {
      setSaveError(toApiError(error));
      setSaving(false);
    }
  }

  return (
    <section className="template-editor" aria-labelledby="editor-heading">
      <div className="template-heading">
        <h1 id="editor-heading">
          {creating ? "New template" : `Edit ${template.name}`}
          {!creating && <span className="muted"> (saving makes version {template.version + 1})</span>}
        </h1>
        <a className="button-link" href={href(creating ? "/templates" : `/templates/${template.id}`)}>
          Cancel
        </a>
      </div>
      <form onSubmit={save}>
        {creating && (
          <div className="field">
            <label htmlFor="template-name">Name</label>
            <input id="template-name" value={name} onChange={(event) => setName(event.target.value)} required />
          </div>
        )}
        {creating && <OwnerField identity={identity} owner={owner} setOwner={setOwner} />}
        <div className="field">
          <label htmlFor="template-description">Description</label>
          <input
            id="template-description"
            value={description}
            onChange={(event) => setDescription(event.target.value)}
          />
        </div>

        <div className="field">
          <span className="field-label">
            Content (Tera)
          </span>
          <CodeEditor
            ref={contentEditor}
            value={content}
            onChange={setContent}
            language="tera"
            label="Template content"
            problems={contentProblems}
          />
          <ProblemList
            field="template_content"
            problems={contentProblems}
            onPick={(problem) => contentEditor.current?.moveTo(problem.place)}
          />
        </div>

        <div className="field">
          <div>
            <span className="field-label">Parameter schema</span>
            <span className="format-toggle" role="group" aria-label="Schema format">
              {(["yaml", "json"] as const).map((format) => (
                <button
                  key={format}
                  type="button"
                  aria-pressed={schema.format === format}
                  onClick={() => switchFormat(format)}
                >
                  {format.toUpperCase()}
                </button>
              ))}
            </span>
          </div>
          {formatProblem && (
            <p className="bad" role="alert">
              {formatProblem}
            </p>
          )}
          <CodeEditor
            ref={schemaEditor}
            value={schema.text}
            onChange={setSchemaText}
            language={schema.format}
            label="Parameter schema"
            problems={schemaProblems}
          />
          <ProblemList
            field="parameters_schema"
            problems={schemaProblems}
            onPick={(problem) => schemaEditor.current?.moveTo(problem.place)}
          />
        </div>

        <CheckStatus check={check} />
        {check.error && <ErrorBox error={check.error} what="checking as you type" />}
        {saveError && <ErrorBox error={saveError} />}
        <div className="actions">
          <button type="submit" className="primary" disabled={saving || (creating && name.trim() === "")}>
            {saving ? "Saving…" : creating ? "Create template" : `Save version ${template.version + 1}`}
          </button>
        </div>
      </form>
    </section>
  );
}

export default function TemplateEditor({ params }: { params: Record<string, string> }) {
  const template = useLoad(
    () => (params.id ? get<Template>(`/templates/${encodeURIComponent(params.id)}`) : Promise.resolve(null)),
    [params.id],
  );
  if (!params.id) return <EditorForm />;
  return (
    <Loaded state={template} what="the template">
      {(loaded) => (loaded ? <EditorForm key={loaded.id} template={loaded} /> : null)}
    </Loaded>
  );
}
