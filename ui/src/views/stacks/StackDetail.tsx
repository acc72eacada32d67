export function StackDetail(_props: { params: Record<string, string> }) {
  return <p>StackDetail</p>;
}
