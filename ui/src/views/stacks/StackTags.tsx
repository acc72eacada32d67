// One stack's labels and annotations, loaded when it is shown.
import { get } from "../../api";
import { useLoad } from "../../useLoad";
import { Tags } from "../../components/Tags";
import type { Annotation, Label } from "../../types";

export function loadStackTags(stackId: string) {
  const id = encodeURIComponent(stackId);
  return Promise.all([get<Label[]>(`/stacks/${id}/labels`), get<Annotation[]>(`/stacks/${id}/annotations`)]);
}

export function StackTags({ stackId }: { stackId: string }) {
  const tags = useLoad(() => loadStackTags(stackId), [stackId]);
  if (tags.error) return <span className="bad">{tags.error.message}</span>;
  if (!tags.value) return <span className="muted">…</span>;
  return <Tags labels={tags.value[0]} annotations={tags.value[1]} />;
}
