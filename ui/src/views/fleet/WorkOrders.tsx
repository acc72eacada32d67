export function WorkOrders(_props: { params: Record<string, string> }) {
  return <p>WorkOrders</p>;
}
