// Labels and annotations as tags; "none" when there are none.
import type { Annotation, Label } from "./types";

export function Tags({ labels, annotations }: { labels?: Label[]; annotations?: Annotation[] }) {
  const empty = (labels?.length ?? 0) + (annotations?.length ?? 0) === 0;
  if (empty) return <span className="muted">none</span>;
  return (
    <span className="tags">
      {labels?.map((label) => (
        <span key={`l:${label.label}`} className="tag" title="label">
          {label.label}
        </span>
      ))}
      {annotations?.map((annotation) => (
        <span key={`a:${annotation.key}`} className="tag annotation" title="annotation">
          {annotation.key}={annotation.value}
        </span>
      ))}
    </span>
  );
}
