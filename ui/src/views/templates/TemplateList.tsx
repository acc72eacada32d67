export function TemplateList(_props: { params: Record<string, string> }) {
  return <p>TemplateList</p>;
}
