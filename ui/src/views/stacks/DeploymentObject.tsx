// One deployment object: its YAML, checksum, and, when it was rendered from
// a template, its provenance with the reconstruction.
import { get } from "../../api";
import { Loaded, Loading } from "../../components/Status";
import { loadProvenance } from "../../lib/reconstruct";
import { href } from "../../router";
import { useLoad } from "../../useLoad";
import { ProvenancePanel } from "./ProvenancePanel";
import { Unavailable } from "../../components/Refusal";
import type { DeploymentObject as StoredObject } from "../../types";
import "./stacks.css";

export function DeploymentObject({ params }: { params: Record<string, string> }) {
  const object = useLoad(() => get<StoredObject>(`/deployment-objects/${encodeURIComponent(params.id)}`), [params.id]);
  return (
    <Loaded state={object} what="the deployment object">
      {(found) => (
        <>
          <div className="view-head">
            <h2>Deployment object {found.sequence_id}</h2>
            <a href={href(`/stacks/${found.stack_id}`)}>its stack</a>
          </div>
          <dl className="facts">
            <dt>Id</dt>
            <dd className="mono">{found.id}</dd>
            <dt>Checksum (sha256)</dt>
            <dd className="checksum" data-testid="checksum">
              {found.yaml_checksum}
            </dd>
            <dt>Created</dt>
            <dd>{found.created_at}</dd>
            {found.is_deletion_marker && (
              <>
                <dt>Kind</dt>
                <dd>deletion marker: the stack was deleted, and its agents remove what they applied</dd>
              </>
            )}
          </dl>
          <Origin objectId={found.id} />
          <section aria-label="YAML">
            <h3>YAML</h3>
            <pre className="yaml" data-testid="yaml">
              {found.yaml_content}
            </pre>
          </section>
        </>
      )}
    </Loaded>
  );
}

function Origin({ objectId }: { objectId: string }) {
  const provenance = useLoad(() => loadProvenance(objectId), [objectId]);
  if (provenance.error?.code === "provenance_not_found") {
    return <p className="notice">This object was submitted as YAML, not rendered from a template.</p>;
  }
  if (provenance.error) return <Unavailable error={provenance.error} what="the object's provenance" />;
  if (!provenance.value) return <Loading what="the provenance" />;
  return <ProvenancePanel provenance={provenance.value} />;
}
