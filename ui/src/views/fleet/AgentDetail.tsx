export function AgentDetail(_props: { params: Record<string, string> }) {
  return <p>AgentDetail</p>;
}
