// #/templates: the live version of every template the PAK may read. The
// broker lets a generator read every template; the owner filter starts a
// generator on its own and the system's, the ones it works with. The
// owner and tag pieces here serve the other template views too.
import { useMemo, useState } from "react";
import { get, type Identity } from "../../api";
import { Paged } from "../../components/Paged";
import { ErrorBox, Loaded } from "../../components/Status";
import { Tags } from "../../components/Tags";
import { href } from "../../router";
import { useSession } from "../../session";
import type { Annotation, Generator, Label, Template, TemplateTarget } from "../../types";
import { useLoad } from "../../useLoad";
import "./templates.css";

// Generator names by id, as far as the PAK may read them: an admin lists
// them all, a generator may read only itself. Others stay ids.
export function useGeneratorNames(identity: Identity): Map<string, string> {
  const loaded = useLoad<Generator[]>(
    () =>
      identity.admin
        ? get<Generator[]>("/generators")
        : identity.generator
          ? get<Generator>(`/generators/${identity.generator}`).then((own) => [own])
          : Promise.resolve([]),
    [identity.admin, identity.generator],
  );
  return useMemo(() => new Map((loaded.value ?? []).map((generator) => [generator.id, generator.name])), [loaded.value]);
}

function isOwn(template: Pick<Template, "generator_id">, identity: Identity): boolean {
  return template.generator_id !== null && template.generator_id === identity.generator;
}

export function Owner({
  template,
  names,
  identity,
}: {
  template: Pick<Template, "generator_id">;
  names: Map<string, string>;
  identity: Identity;
}) {
  if (template.generator_id === null) return <span className="muted">system</span>;
  const name = names.get(template.generator_id);
  return (
    <>
      {name ?? <code title="generator id">{template.generator_id}</code>}
      {isOwn(template, identity) && (
        <span className="tag template-yours" data-testid="yours">
          yours
        </span>
      )}
    </>
  );
}

export function loadLabels(id: string): Promise<Label[]> {
  return get<Label[]>(`/templates/${id}/labels`);
}

export function loadAnnotations(id: string): Promise<Annotation[]> {
  return get<Annotation[]>(`/templates/${id}/annotations`);
}

// Labels, annotations and targets of one row, asked only for the rows on the
// page shown.
function RowTags({ id }: { id: string }) {
  const loaded = useLoad(
    () => Promise.all([loadLabels(id), loadAnnotations(id), get<TemplateTarget[]>(`/templates/${id}/targets`)]),
    [id],
  );
  if (loaded.error) {
    return (
      <td colSpan={3}>
        <ErrorBox error={loaded.error} what="the template's labels" />
      </td>
    );
  }
  if (!loaded.value) {
    return (
      <td colSpan={3} className="muted">
        …
      </td>
    );
  }
  const [labels, annotations, targets] = loaded.value;
  return (
    <>
      <td>
        <Tags labels={labels} />
      </td>
      <td>
        <Tags annotations={annotations} />
      </td>
      <td data-testid="targets">{targets.length}</td>
    </>
  );
}

type OwnerFilter = "all" | "mine-and-system" | "mine" | "system" | `generator:${string}`;

function ownerMatches(filter: OwnerFilter, template: Template, identity: Identity): boolean {
  switch (filter) {
    case "all":
      return true;
    case "mine-and-system":
      return template.generator_id === null || isOwn(template, identity);
    case "mine":
      return isOwn(template, identity);
    case "system":
      return template.generator_id === null;
    default:
      return template.generator_id === filter.slice("generator:".length);
  }
}

export function TemplateList(_props: { params: Record<string, string> }) {
  const { identity } = useSession();
  const templates = useLoad(() => get<Template[]>("/templates"), []);
  const names = useGeneratorNames(identity);
  const [nameFilter, setNameFilter] = useState("");
  const [ownerFilter, setOwnerFilter] = useState<OwnerFilter>("all");

  const owners = useMemo(() => {
    const ids = new Set<string>();
    for (const template of templates.value ?? []) if (template.generator_id) ids.add(template.generator_id);
    return [...ids].sort((a, b) => (names.get(a) ?? a).localeCompare(names.get(b) ?? b));
  }, [templates.value, names]);

  return (
    <section aria-labelledby="templates-heading">
      <div className="template-heading">
        <h1 id="templates-heading">Templates</h1>
        <a className="button-link primary" href={href("/templates/new")}>
          New template
        </a>
      </div>
      <div className="template-filters">
        <label>
          Filter by name{" "}
          <input type="search" value={nameFilter} onChange={(event) => setNameFilter(event.target.value)} />
        </label>
        <label>
          Owner{" "}
          <select value={ownerFilter} onChange={(event) => setOwnerFilter(event.target.value as OwnerFilter)}>
            {identity.admin ? (
              <>
                <option value="all">All</option>
                <option value="system">System</option>
                {owners.map((id) => (
                  <option key={id} value={`generator:${id}`}>
                    {names.get(id) ?? id}
                  </option>
                ))}
              </>
            ) : (
              <>
                <option value="all">All you may read</option>
                <option value="mine-and-system">Yours and system</option>
                <option value="mine">Yours</option>
                <option value="system">System</option>
              </>
            )}
          </select>
        </label>
      </div>
      <Loaded state={templates} what="templates">
        {(all) => {
          const needle = nameFilter.trim().toLowerCase();
          const shown = all.filter(
            (template) => template.name.toLowerCase().includes(needle) && ownerMatches(ownerFilter, template, identity),
          );
          if (shown.length === 0) {
            return (
              <p className="notice">
                {all.length === 0 ? "No templates yet." : "No template matches the filters."}{" "}
                <a href={href("/templates/new")}>Create one</a>.
              </p>
            );
          }
          return (
            <Paged items={shown} label="templates">
              {(rows) => (
                <table className="template-table">
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Version</th>
                      <th scope="col">Owner</th>
                      <th scope="col">Labels</th>
                      <th scope="col">Annotations</th>
                      <th scope="col">Targets</th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((template) => (
                      <tr key={template.id} data-testid="template-row" data-name={template.name}>
                        <td>
                          <a href={href(`/templates/${template.id}`)}>{template.name}</a>
                          {template.description && <div className="muted">{template.description}</div>}
                        </td>
                        <td>{template.version}</td>
                        <td>
                          <Owner template={template} names={names} identity={identity} />
                        </td>
                        <RowTags id={template.id} />
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </Paged>
          );
        }}
      </Loaded>
    </section>
  );
}
