// #/templates/:id: one template version, every version of its name, two of
// them side by side with a line diff, and the stacks it may go to.
import { useMemo, useState } from "react";
import { ApiError, get, type Identity } from "../../api";
import { Loaded } from "../../components/Status";
import { Tags } from "../../components/Tags";
import { diffLines, diffSummary, type DiffLine, type DiffRow } from "../../lib/diff";
import { href } from "../../router";
import { useSession } from "../../session";
import type { Stack, Template, TemplateTarget } from "../../types";
import { useLoad } from "../../useLoad";
import { loadAnnotations, loadLabels, Owner, useGeneratorNames } from "./TemplateList";
import "./templates.css";

// GET /templates/{id} answers live versions only; a superseded one is found
// among all versions.
async function loadTemplate(id: string): Promise<Template> {
  try {
    return await get<Template>(`/templates/${encodeURIComponent(id)}`);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
    const all = await get<Template[]>("/templates?all_versions=true");
    const found = all.find((template) => template.id === id);
    if (!found) throw error;
    return found;
  }
}

// Listing by name gives every version of every owner's template of that
// name; the owner's are this template's versions.
async function loadVersions(template: Template): Promise<Template[]> {
  const query = new URLSearchParams({ name: template.name });
  if (template.generator_id) query.set("generator_id", template.generator_id);
  const listed = await get<Template[]>(`/templates?${query}`);
  return listed
    .filter((version) => version.generator_id === template.generator_id)
    .sort((a, b) => a.version - b.version);
}

// Schemas are stored as the author wrote them; indented alike they diff by
// meaning rather than by layout.
function prettySchema(schema: string): string {
  try {
    return JSON.stringify(JSON.parse(schema), null, 2) + "\n";
  } catch {
    return schema;
  }
}

function versionState(version: Template, versions: Template[]): string {
  if (!version.deleted_at) return "live";
  return versions.some((other) => other.version > version.version) ? "superseded" : "deleted";
}

function mayChange(template: Template, identity: Identity): boolean {
  return identity.admin || (template.generator_id !== null && template.generator_id === identity.generator);
}

export function TemplateDetail({ params }: { params: Record<string, string> }) {
  const { identity } = useSession();
  const names = useGeneratorNames(identity);
  const template = useLoad(() => loadTemplate(params.id), [params.id]);
  return (
    <Loaded state={template} what="the template">
      {(loaded) => <TemplateView key={loaded.id} template={loaded} names={names} identity={identity} />}
    </Loaded>
  );
}

function TemplateView({
  template,
  names,
  identity,
}: {
  template: Template;
  names: Map<string, string>;
  identity: Identity;
}) {
  const live = !template.deleted_at;
  const versions = useLoad(() => loadVersions(template), [template.id]);
  return (
    <article aria-labelledby="template-heading">
      <div className="template-heading">
        <h1 id="template-heading">
          {template.name} <span className="muted">version {template.version}</span>
        </h1>
        {live && mayChange(template, identity) && (
          <a className="button-link" href={href(`/templates/${template.id}/edit`)}>
            Edit
          </a>
        )}
        {live && (
          <a className="button-link primary" href={href(`/templates/${template.id}/instantiate`)}>
            Instantiate
          </a>
        )}
      </div>
      {!live && (
        <p className="notice" role="status">
          This version is no longer live: it was replaced or deleted. It can be read and compared, not changed or
          instantiated.
        </p>
      )}
      <dl className="template-facts">
        <dt>Description</dt>
        <dd>{template.description || <span className="muted">none</span>}</dd>
        <dt>Version</dt>
        <dd data-testid="template-version">{template.version}</dd>
        <dt>Owner</dt>
        <dd>
          <Owner template={template} names={names} identity={identity} />
        </dd>
        <dt>Created</dt>
        <dd>{new Date(template.created_at).toLocaleString()}</dd>
        <dt>Checksum</dt>
        <dd>
          <code>{template.checksum}</code>
        </dd>
        {live && <TemplateTags id={template.id} />}
      </dl>

      {live && <Targets id={template.id} />}

      <div className="row">
        <section aria-labelledby="content-heading">
          <h2 id="content-heading">Content</h2>
          <pre data-testid="template-content">{template.template_content}</pre>
        </section>
        <section aria-labelledby="schema-heading">
          <h2 id="schema-heading">Parameter schema</h2>
          <pre data-testid="template-schema">{prettySchema(template.parameters_schema)}</pre>
        </section>
      </div>

      <section aria-labelledby="versions-heading">
        <h2 id="versions-heading">Versions</h2>
        <Loaded state={versions} what="the versions">
          {(all) => <Versions current={template} versions={all} />}
        </Loaded>
      </section>
    </article>
  );
}

function TemplateTags({ id }: { id: string }) {
  const tags = useLoad(() => Promise.all([loadLabels(id), loadAnnotations(id)]), [id]);
  return (
    <>
      <dt>Labels</dt>
      <dd>
        <Loaded state={tags} what="the labels">
          {([labels]) => <Tags labels={labels} />}
        </Loaded>
      </dd>
      <dt>Annotations</dt>
      <dd>
        <Loaded state={tags} what="the annotations">
          {([, annotations]) => <Tags annotations={annotations} />}
        </Loaded>
      </dd>
    </>
  );
}

// A stack the PAK cannot read shows as its id.
async function loadTargets(id: string): Promise<{ target: TemplateTarget; stack?: Stack }[]> {
  const targets = await get<TemplateTarget[]>(`/templates/${id}/targets`);
  return Promise.all(
    targets.map((target) =>
      get<Stack>(`/stacks/${target.stack_id}`).then(
        (stack) => ({ target, stack }),
        () => ({ target }),
      ),
    ),
  );
}

function Targets({ id }: { id: string }) {
  const targets = useLoad(() => loadTargets(id), [id]);
  return (
    <section aria-labelledby="targets-heading">
      <h2 id="targets-heading">Stacks it may go to</h2>
      <Loaded state={targets} what="the template's targets">
        {(all) =>
          all.length === 0 ? (
            <p className="muted">
              No stack carries this template's labels and annotations (or none that this PAK may read).
            </p>
          ) : (
            <ul className="template-targets">
              {all.map(({ target, stack }) => (
                <li key={target.id}>
                  <a href={href(`/stacks/${target.stack_id}`)}>{stack?.name ?? target.stack_id}</a>
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
    </section>
  );
}

function defaultPair(current: Template, versions: Template[]): [string, string] {
  const index = versions.findIndex((version) => version.id === current.id);
  if (index > 0) return [versions[index - 1].id, current.id];
  if (index === 0 && versions.length > 1) return [current.id, versions[1].id];
  return [current.id, current.id];
}

function Versions({ current, versions }: { current: Template; versions: Template[] }) {
  const [pair, setPair] = useState(() => defaultPair(current, versions));
  const left = versions.find((version) => version.id === pair[0]) ?? current;
  const right = versions.find((version) => version.id === pair[1]) ?? current;
  const picker = (side: 0 | 1, label: string) => (
    <label>
      {label}{" "}
      <select
        value={pair[side]}
        onChange={(event) =>
          setPair((previous) => (side === 0 ? [event.target.value, previous[1]] : [previous[0], event.target.value]))
        }
      >
        {versions.map((version) => (
          <option key={version.id} value={version.id}>
            version {version.version}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <>
      <table className="template-versions">
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">State</th>
            <th scope="col">Created</th>
            <th scope="col">Description</th>
          </tr>
        </thead>
        <tbody>
          {versions.map((version) => (
            <tr key={version.id} aria-current={version.id === current.id ? "true" : undefined}>
              <td>
                {version.id === current.id ? (
                  <strong>version {version.version} (shown)</strong>
                ) : (
                  <a href={href(`/templates/${version.id}`)}>version {version.version}</a>
                )}
              </td>
              <td>{versionState(version, versions)}</td>
              <td>{new Date(version.created_at).toLocaleString()}</td>
              <td>{version.description}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {versions.length < 2 ? (
        <p className="muted">There is one version: nothing to compare yet.</p>
      ) : (
        <section aria-labelledby="compare-heading" className="template-compare">
          <h3 id="compare-heading">Compare</h3>
          <div className="template-filters">
            {picker(0, "Left")}
            {picker(1, "Right")}
          </div>
          <SideBySide title="Content" before={left.template_content} after={right.template_content} />
          <SideBySide
            title="Parameter schema"
            before={prettySchema(left.parameters_schema)}
            after={prettySchema(right.parameters_schema)}
          />
        </section>
      )}
    </>
  );
}

const MARKS: Record<DiffRow["kind"], string> = { same: "", changed: "~", removed: "−", added: "+" };

function Cell({ line, side, kind }: { line?: DiffLine; side: "left" | "right"; kind: DiffRow["kind"] }) {
  const tint = kind === "same" ? "" : side === "left" ? "diff-removed" : "diff-added";
  if (!line) return <td colSpan={2} className="diff-gap" />;
  return (
    <>
      <td className={`diff-number ${tint}`}>{line.number}</td>
      <td className={`diff-text ${tint}`}>
        {line.text}
        {line.noFinalNewline && <span className="muted"> (no newline at end)</span>}
      </td>
    </>
  );
}

function SideBySide({ title, before, after }: { title: string; before: string; after: string }) {
  const diff = useMemo(() => diffLines(before, after), [before, after]);
  const summary = diffSummary(diff.rows);
  const unchanged = summary.added + summary.removed + summary.changed === 0;
  return (
    <figure className="diff" data-testid={`diff-${title}`}>
      <figcaption>
        <strong>{title}</strong>{" "}
        <span className="muted">
          {unchanged
            ? "identical"
            : `${summary.changed} changed, ${summary.added} added, ${summary.removed} removed`}
          {diff.truncated && " (too many differences to align: shown as replaced)"}
        </span>
      </figcaption>
      <div className="diff-scroll">
        <table className="mono">
          <tbody>
            {diff.rows.map((row, index) => (
              <tr key={index} data-kind={row.kind}>
                <td className="diff-mark">
                  <span aria-hidden="true">{MARKS[row.kind]}</span>
                  {row.kind !== "same" && <span className="visually-hidden">{row.kind}</span>}
                </td>
                <Cell line={row.kind === "added" ? undefined : row.left} side="left" kind={row.kind} />
                <Cell line={row.kind === "removed" ? undefined : row.right} side="right" kind={row.kind} />
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
