export function DeploymentObject(_props: { params: Record<string, string> }) {
  return <p>DeploymentObject</p>;
}
