export function Webhooks(_props: { params: Record<string, string> }) {
  return <p>Webhooks</p>;
}
