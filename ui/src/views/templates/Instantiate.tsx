export default function Instantiate(_props: { params: Record<string, string> }) {
  return <p>Instantiate</p>;
}
