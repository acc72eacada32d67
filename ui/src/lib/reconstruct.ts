// Reconstruction: the broker renders an object's recorded template version
// (retired or not) with its recorded parameters again and says whether the
// result is the stored YAML byte for byte. When it is not, the console shows
// where the two first differ. Shared by the instantiate and deployment
// object views.
import { get, post } from "../api";
import type { DeploymentObject, Provenance, Reconstructed } from "../types";
import { firstDifference, type Comparison } from "./firstDifference";

export interface Reconstruction {
  answer: Reconstructed;
  // Only when the broker found them different.
  difference?: Comparison;
}

export async function reconstruct(objectId: string): Promise<Reconstruction> {
  const id = encodeURIComponent(objectId);
  const answer = await post<Reconstructed>(`/deployment-objects/${id}/reconstruct`);
  if (answer.identical) return { answer };
  const stored = await get<DeploymentObject>(`/deployment-objects/${id}`);
  return { answer, difference: firstDifference(stored.yaml_content, answer.yaml_content) };
}

export function loadProvenance(objectId: string): Promise<Provenance> {
  return get<Provenance>(`/deployment-objects/${encodeURIComponent(objectId)}/provenance`);
}
