export function TemplateDetail(_props: { params: Record<string, string> }) {
  return <p>TemplateDetail</p>;
}
