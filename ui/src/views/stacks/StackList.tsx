export function StackList(_props: { params: Record<string, string> }) {
  return <p>StackList</p>;
}
