// Instantiating a template: a form drawn from its parameter schema (rjsf,
// ajv validating as one types), the broker's verdict on the same values
// beside the fields (authoritative: the form's ajv only speaks draft 7), a
// live preview of the rendered YAML, the stacks the template may go to, and
// the instantiation, its provenance and its reconstruction. Loaded on
// demand: rjsf and ajv are the heaviest part of the console.
import Form, { getDefaultRegistry, type IChangeEvent } from "@rjsf/core";
import type { ErrorSchema, ObjectFieldTemplateProps, RJSFSchema, UiSchema } from "@rjsf/utils";
import validator from "@rjsf/validator-ajv8";
import { useEffect, useMemo, useRef, useState } from "react";
import { get, post, toApiError, type ApiError } from "../../api";
import { ErrorBox, Loaded, Loading } from "../../components/Status";
import {
  buildUiSchema,
  countErrors,
  fillDefaults,
  parseParametersSchema,
  SchemaTextError,
  violationsToErrorTree,
  type ErrorTree,
  type JsonSchema,
} from "../../lib/schemaForm";
import { loadProvenance } from "../../lib/reconstruct";
import { href } from "../../router";
import { useLoad } from "../../useLoad";
import { ProvenancePanel } from "../stacks/ProvenancePanel";
import type { DeploymentObject, Provenance, Rendered, Stack, Template, TemplateTarget } from "../../types";
import "../stacks/stacks.css";

// How long the form must rest before the preview asks the broker.
const PREVIEW_DELAY_MS = 400;

type Parameters = Record<string, unknown>;

// The broker's violations as the form's errors; undefined for any other
// failure, which the preview shows instead.
function brokerErrors(schema: JsonSchema, error: ApiError): ErrorTree | undefined {
  if (error.code !== "invalid_parameters" || !error.details?.violations) return undefined;
  return violationsToErrorTree(schema, error.details.violations);
}

export default function Instantiate({ params }: { params: Record<string, string> }) {
  const id = params.id;
  const template = useLoad(() => get<Template>(`/templates/${encodeURIComponent(id)}`), [id]);
  return (
    <Loaded state={template} what="the template">
      {(loaded) => <InstantiateTemplate key={loaded.id} template={loaded} />}
    </Loaded>
  );
}

function InstantiateTemplate({ template }: { template: Template }) {
  const parsed = useMemo((): { schema?: JsonSchema; uiSchema?: UiSchema; defaults?: Parameters; problem?: string } => {
    try {
      const schema = parseParametersSchema(template.parameters_schema);
      const uiSchema = { ...buildUiSchema(schema), "ui:submitButtonOptions": { norender: true } };
      return { schema, uiSchema, defaults: fillDefaults(schema) };
    } catch (cause) {
      if (cause instanceof SchemaTextError) return { problem: cause.message };
      throw cause;
    }
  }, [template.parameters_schema]);
  const [parameters, setParameters] = useState<Parameters>(parsed.defaults ?? {});
  const [verdict, setVerdict] = useState<ErrorTree>({});

  if (!parsed.schema) return <p className="error">{parsed.problem}</p>;
  const schema = parsed.schema;
  // The form hides rjsf's error list, so a violation of the parameters as a
  // whole, which belongs to no field, is shown above the form instead.
  const { __errors: wholeErrors = [], ...fieldErrors } = verdict;

  return (
    <div className="instantiate">
      <div className="view-head">
        <h2>
          Instantiate <a href={href(`/templates/${template.id}`)}>{template.name}</a> version {template.version}
        </h2>
      </div>
      {template.description && <p className="muted">{template.description}</p>}
      <div className="row">
        <section aria-label="Parameters">
          <h3>Parameters</h3>
          {typeof schema.description === "string" && <p className="muted">{schema.description}</p>}
          {wholeErrors.length > 0 && (
            <ul className="error" role="alert" data-testid="parameters-errors">
              {wholeErrors.map((message) => (
                <li key={message}>{message}</li>
              ))}
            </ul>
          )}
          <Form
            schema={schema as RJSFSchema}
            uiSchema={parsed.uiSchema}
            formData={parameters}
            validator={validator}
            liveValidate="onChange"
            showErrorList={false}
            noHtml5Validate
            extraErrors={fieldErrors as ErrorSchema}
            templates={{ ObjectFieldTemplate: CollapsibleObject, DescriptionFieldTemplate: NoDescription }}
            onChange={(event: IChangeEvent<Parameters>) => setParameters(event.formData ?? {})}
          />
        </section>
        <Preview templateId={template.id} schema={schema} parameters={parameters} onVerdict={setVerdict} />
      </div>
      <Instantiation template={template} schema={schema} parameters={parameters} onVerdict={setVerdict} />
    </div>
  );
}

// Descriptions are shown as each field's help (lib/schemaForm.ts), once.
function NoDescription() {
  return null;
}

const DefaultObjectTemplate = getDefaultRegistry().templates.ObjectFieldTemplate;

// A large nested object starts folded; it opens by itself when something in
// it is wrong.
function CollapsibleObject(props: ObjectFieldTemplateProps) {
  if (props.uiSchema?.["ui:collapsed"] !== true) return <DefaultObjectTemplate {...props} />;
  const wrong = countErrors((props.errorSchema ?? {}) as ErrorTree) > 0;
  return (
    <details className="collapsed-object" open={wrong || undefined}>
      <summary>
        {props.title || "object"} ({props.properties.length} fields)
      </summary>
      <DefaultObjectTemplate {...props} />
    </details>
  );
}

type PreviewState =
  | { kind: "waiting" }
  | { kind: "rendered"; rendered: Rendered }
  | { kind: "refused"; error: ApiError; violations: number };

// The YAML the broker renders from the current values, asked for once the
// form rests; an answer overtaken by a later change is dropped.
function Preview({
  templateId,
  schema,
  parameters,
  onVerdict,
}: {
  templateId: string;
  schema: JsonSchema;
  parameters: Parameters;
  onVerdict: (errors: ErrorTree) => void;
}) {
  const [state, setState] = useState<PreviewState>({ kind: "waiting" });
  const [busy, setBusy] = useState(false);
  const generation = useRef(0);

  useEffect(() => {
    const mine = ++generation.current;
    setBusy(true);
    const timer = window.setTimeout(() => {
      post<Rendered>(`/templates/${encodeURIComponent(templateId)}/render`, { parameters }).then(
        (rendered) => {
          if (mine !== generation.current) return;
          onVerdict({});
          setState({ kind: "rendered", rendered });
          setBusy(false);
        },
        (cause) => {
          if (mine !== generation.current) return;
          const error = toApiError(cause);
          const errors = brokerErrors(schema, error);
          onVerdict(errors ?? {});
          setState({ kind: "refused", error, violations: errors ? countErrors(errors) : 0 });
          setBusy(false);
        },
      );
    }, PREVIEW_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [templateId, schema, parameters, onVerdict]);

  return (
    <section aria-label="Preview" className="preview">
      <h3>
        Preview {busy && <span className="muted">(rendering…)</span>}
      </h3>
      <div data-testid="preview" aria-live="polite">
        {state.kind === "waiting" && <Loading what="the preview" />}
        {state.kind === "rendered" && (
          <>
            <p className="muted">
              version {state.rendered.template_version}, sha256 <span className="checksum">{state.rendered.checksum}</span>
            </p>
            <pre className="yaml">{state.rendered.yaml_content}</pre>
          </>
        )}
        {state.kind === "refused" &&
          (state.violations > 0 ? (
            <p className="error" role="alert">
              The broker refuses these parameters: {state.violations} violation{state.violations === 1 ? "" : "s"},
              shown with the form.
            </p>
          ) : (
            <ErrorBox error={state.error} what="rendering" />
          ))}
      </div>
    </section>
  );
}

// The stacks the template may go to, and the instantiation into one; then
// the new object with its provenance.
function Instantiation({
  template,
  schema,
  parameters,
  onVerdict,
}: {
  template: Template;
  schema: JsonSchema;
  parameters: Parameters;
  onVerdict: (errors: ErrorTree) => void;
}) {
  const targets = useLoad(async () => {
    const [found, stacks] = await Promise.all([
      get<TemplateTarget[]>(`/templates/${encodeURIComponent(template.id)}/targets`),
      get<Stack[]>("/stacks"),
    ]);
    const byId = new Map(stacks.map((stack) => [stack.id, stack]));
    return found.map((target) => ({ id: target.stack_id, name: byId.get(target.stack_id)?.name ?? target.stack_id }));
  }, [template.id]);
  const [stackId, setStackId] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  const [created, setCreated] = useState<DeploymentObject>();
  const [provenance, setProvenance] = useState<Provenance>();
  const [provenanceError, setProvenanceError] = useState<ApiError>();

  const chosen = stackId || targets.value?.[0]?.id || "";

  async function instantiate() {
    setBusy(true);
    setError(undefined);
    setCreated(undefined);
    setProvenance(undefined);
    setProvenanceError(undefined);
    try {
      const object = await post<DeploymentObject>(
        `/stacks/${encodeURIComponent(chosen)}/deployment-objects/from-template`,
        { template_id: template.id, parameters },
      );
      setCreated(object);
      loadProvenance(object.id).then(setProvenance, (cause) => setProvenanceError(toApiError(cause)));
    } catch (cause) {
      const refused = toApiError(cause);
      const errors = brokerErrors(schema, refused);
      if (errors) onVerdict(errors);
      setError(refused);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-label="Instantiation" className="instantiation">
      <h3>Instantiate into a stack</h3>
      <Loaded state={targets} what="the stacks this template may go to">
        {(stacks) =>
          stacks.length === 0 ? (
            <p className="notice">
              No stack you may deploy to carries this template's labels and annotations, so it has nowhere to go.
            </p>
          ) : (
            <div className="toolbar">
              <label>
                Stack
                <select value={chosen} onChange={(event) => setStackId(event.target.value)}>
                  {stacks.map((stack) => (
                    <option key={stack.id} value={stack.id}>
                      {stack.name}
                    </option>
                  ))}
                </select>
              </label>
              <button className="primary" onClick={instantiate} disabled={busy || !chosen}>
                {busy ? "Instantiating…" : "Instantiate"}
              </button>
            </div>
          )
        }
      </Loaded>
      {error && <ErrorBox error={error} what="instantiation" />}
      {created && (
        <div data-testid="instantiated">
          <p className="ok" role="status">
            Created deployment object <a href={href(`/objects/${created.id}`)}>{created.id}</a> (sequence{" "}
            {created.sequence_id}) in stack <a href={href(`/stacks/${created.stack_id}`)}>{created.stack_id}</a>.
          </p>
          {provenance && <ProvenancePanel provenance={provenance} />}
          {provenanceError && <ErrorBox error={provenanceError} what="provenance" />}
          {!provenance && !provenanceError && <Loading what="the provenance" />}
        </div>
      )}
    </section>
  );
}
