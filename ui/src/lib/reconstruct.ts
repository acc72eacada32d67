// Reconstruction: render an object's recorded template version with its
// recorded parameters again and compare the result, byte for byte, with the
// YAML the broker stored. Shared by the instantiate and deployment object
// views.
import { get, post } from "../api";
import { firstDifference, type Comparison } from "../views/stacks/firstDifference";
import type { DeploymentObject, Provenance, Rendered } from "../views/stacks/types";

export interface Reconstruction {
  comparison: Comparison;
  rendered: Rendered;
  stored: DeploymentObject;
}

export async function reconstruct(provenance: Provenance): Promise<Reconstruction> {
  const objectId = encodeURIComponent(provenance.deployment_object_id);
  const [stored, rendered] = await Promise.all([
    get<DeploymentObject>(`/deployment-objects/${objectId}`),
    post<Rendered>(`/templates/${encodeURIComponent(provenance.template_id)}/render`, {
      parameters: provenance.parameters,
    }),
  ]);
  return { stored, rendered, comparison: firstDifference(stored.yaml_content, rendered.yaml_content) };
}

export function loadProvenance(objectId: string): Promise<Provenance> {
  return get<Provenance>(`/deployment-objects/${encodeURIComponent(objectId)}/provenance`);
}
