// The audit log's filters (admin.cpp's query parameters), kept in the
// view's hash (#/audit?action=stack.created) so that a filtered view can be
// reloaded and shared, and sent to the broker as the same parameters.

const AUDIT_FILTERS = ["actor_type", "actor_id", "action", "resource_type", "resource_id", "from", "to"] as const;
export type AuditFilter = (typeof AUDIT_FILTERS)[number];
export type AuditFilters = Partial<Record<AuditFilter, string>>;

export const AUDIT_PAGE = 50;

// The filters and page offset in a hash path's query.
export function readAuditQuery(path: string): { filters: AuditFilters; offset: number } {
  const at = path.indexOf("?");
  const query = new URLSearchParams(at === -1 ? "" : path.slice(at + 1));
  const filters: AuditFilters = {};
  for (const name of AUDIT_FILTERS) {
    const value = query.get(name)?.trim();
    if (value) filters[name] = value;
  }
  const offset = Number(query.get("offset"));
  return { filters, offset: Number.isInteger(offset) && offset > 0 ? offset : 0 };
}

// The query both the hash and the broker take; empty filters left out.
export function auditQuery(filters: AuditFilters, offset: number, limit = AUDIT_PAGE): URLSearchParams {
  const query = new URLSearchParams();
  for (const name of AUDIT_FILTERS) {
    const value = filters[name]?.trim();
    if (value) query.set(name, value);
  }
  if (offset > 0) query.set("offset", String(offset));
  query.set("limit", String(limit));
  return query;
}

// <input type="datetime-local"> gives local time without a zone; the broker
// takes RFC 3339.
export function localToRfc3339(local: string): string {
  if (!local) return "";
  const time = new Date(local);
  return Number.isNaN(time.getTime()) ? local : time.toISOString();
}

export function rfc3339ToLocal(timestamp: string | undefined): string {
  if (!timestamp) return "";
  const time = new Date(timestamp);
  if (Number.isNaN(time.getTime())) return "";
  const local = new Date(time.getTime() - time.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}
