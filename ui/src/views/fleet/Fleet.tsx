export function Fleet(_props: { params: Record<string, string> }) {
  return <p>Fleet</p>;
}
