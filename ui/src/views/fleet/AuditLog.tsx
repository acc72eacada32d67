// The audit log with its filters (who, what, on which resource, when),
// paged by the broker. An admin's view: others are refused, and the view
// says so.
import { useState, type FormEvent } from "react";
import { get } from "../../api";
import { navigate, usePath } from "../../router";
import { useLoad } from "../../useLoad";
import { LoadedOrRefused } from "../../components/Refusal";
import {
  AUDIT_PAGE,
  auditQuery,
  localToRfc3339,
  readAuditQuery,
  rfc3339ToLocal,
  type AuditFilters,
} from "./auditQuery";
import "../stacks/stacks.css";

interface AuditEntry {
  id: string;
  timestamp: string;
  actor_type: string;
  actor_id?: string | null;
  actor_name?: string | null;
  action: string;
  resource_type: string;
  resource_id?: string | null;
  details?: unknown;
  ip_address?: string | null;
}

interface AuditPage {
  logs: AuditEntry[];
  total: number;
  count: number;
  limit: number;
  offset: number;
}

const ACTOR_TYPES = ["", "admin", "generator", "agent", "system"];
const TEXT_FILTERS: [keyof AuditFilters, string][] = [
  ["action", "Action"],
  ["resource_type", "Resource type"],
  ["resource_id", "Resource id"],
  ["actor_id", "Actor id"],
];

export function AuditLog(_props: { params: Record<string, string> }) {
  const path = usePath();
  const { filters, offset } = readAuditQuery(path);
  const query = auditQuery(filters, offset).toString();
  const page = useLoad(() => get<AuditPage>(`/admin/audit-logs?${query}`), [query]);

  const show = (next: AuditFilters, nextOffset: number) => {
    const hash = auditQuery(next, nextOffset);
    hash.delete("limit");
    const text = hash.toString();
    navigate(text ? `/audit?${text}` : "/audit");
  };

  return (
    <>
      <div className="view-head">
        <h2>Audit log</h2>
      </div>
      <FilterForm key={query} filters={filters} onApply={(next) => show(next, 0)} />
      <LoadedOrRefused state={page} what="the audit log">
        {(found) => (
          <>
            {found.logs.length === 0 ? (
              <p className="notice">No audit entries match.</p>
            ) : (
              <table data-testid="audit-log">
                <thead>
                  <tr>
                    <th>When</th>
                    <th>Actor</th>
                    <th>Action</th>
                    <th>Resource</th>
                    <th>Details</th>
                  </tr>
                </thead>
                <tbody>
                  {found.logs.map((entry) => (
                    <tr key={entry.id}>
                      <td>{entry.timestamp}</td>
                      <td>
                        {entry.actor_type}
                        {entry.actor_name && entry.actor_name !== entry.actor_type ? ` ${entry.actor_name}` : ""}
                        {entry.actor_id && <div className="mono muted">{entry.actor_id}</div>}
                      </td>
                      <td>{entry.action}</td>
                      <td>
                        {entry.resource_type}
                        {entry.resource_id && <div className="mono muted">{entry.resource_id}</div>}
                      </td>
                      <td className="mono">
                        {entry.details === undefined || entry.details === null ? "" : JSON.stringify(entry.details)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <nav className="pager" aria-label="Audit log pages">
              <button onClick={() => show(filters, Math.max(0, offset - AUDIT_PAGE))} disabled={offset === 0}>
                Previous
              </button>
              <span>
                {found.total === 0
                  ? "no entries"
                  : `entries ${found.offset + 1}–${found.offset + found.count} of ${found.total}`}
              </span>
              <button
                onClick={() => show(filters, offset + AUDIT_PAGE)}
                disabled={found.offset + found.count >= found.total}
              >
                Next
              </button>
            </nav>
          </>
        )}
      </LoadedOrRefused>
    </>
  );
}

function FilterForm({ filters, onApply }: { filters: AuditFilters; onApply: (filters: AuditFilters) => void }) {
  const [draft, setDraft] = useState<AuditFilters>(filters);
  const set = (name: keyof AuditFilters, value: string) => setDraft((previous) => ({ ...previous, [name]: value }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply(draft);
  };
  return (
    <form className="toolbar audit-filters" onSubmit={submit} aria-label="Audit log filters">
      <label>
        Actor type
        <select value={draft.actor_type ?? ""} onChange={(event) => set("actor_type", event.target.value)}>
          {ACTOR_TYPES.map((type) => (
            <option key={type} value={type}>
              {type || "any"}
            </option>
          ))}
        </select>
      </label>
      {TEXT_FILTERS.map(([name, label]) => (
        <label key={name}>
          {label}
          <input value={draft[name] ?? ""} onChange={(event) => set(name, event.target.value)} />
        </label>
      ))}
      <label>
        From
        <input
          type="datetime-local"
          value={rfc3339ToLocal(draft.from)}
          onChange={(event) => set("from", localToRfc3339(event.target.value))}
        />
      </label>
      <label>
        To
        <input
          type="datetime-local"
          value={rfc3339ToLocal(draft.to)}
          onChange={(event) => set("to", localToRfc3339(event.target.value))}
        />
      </label>
      <button type="submit" className="primary">
        Filter
      </button>
      <button type="button" onClick={() => onApply({})}>
        Clear
      </button>
    </form>
  );
}
