// Labels and annotations as tags; "none" when there are none.
import type { Annotation, Label } from "../types";

export function Tags({ labels = [], annotations = [] }: { labels?: Label[]; annotations?: Annotation[] }) {
  if (labels.length === 0 && annotations.length === 0) return <span className="muted">none</span>;
  return (
    <span className="tags">
      {labels.map((label) => (
        <span key={label.id} className="tag" title="label">
          {label.label}
        </span>
      ))}
      {annotations.map((annotation) => (
        <span key={annotation.id} className="tag annotation" title="annotation">
          {annotation.key}={annotation.value}
        </span>
      ))}
    </span>
  );
}
