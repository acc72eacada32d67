export default function TemplateEditor(_props: { params: Record<string, string> }) {
  return <p>TemplateEditor</p>;
}
