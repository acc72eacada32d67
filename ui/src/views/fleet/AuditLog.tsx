export function AuditLog(_props: { params: Record<string, string> }) {
  return <p>AuditLog</p>;
}
