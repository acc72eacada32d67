// Where a deployment object came from (template, version, parameters) and
// the reconstruction: render it again and compare with what was stored.
import { useState } from "react";
import { toApiError, type ApiError } from "../../api";
import { ErrorBox } from "../../components/Status";
import { shortChecksum } from "../../lib/format";
import { reconstruct, type Reconstruction } from "../../lib/reconstruct";
import { href } from "../../router";
import type { Provenance } from "../../types";
import "./stacks.css";

export function ProvenancePanel({ provenance }: { provenance: Provenance }) {
  return (
    <section className="provenance" aria-label="Provenance" data-testid="provenance">
      <h3>Provenance</h3>
      <dl className="facts">
        <dt>Template</dt>
        <dd>
          <a href={href(`/templates/${provenance.template_id}`)}>{provenance.template.name}</a> version{" "}
          {provenance.template_version}
          {provenance.template.deleted_at && <span className="muted"> (since superseded or retired)</span>}
        </dd>
        <dt>Rendered at</dt>
        <dd>{provenance.created_at}</dd>
        <dt>Parameters</dt>
        <dd>
          <pre className="parameters">{JSON.stringify(provenance.parameters, null, 2)}</pre>
        </dd>
      </dl>
      <ReconstructButton provenance={provenance} />
    </section>
  );
}

function ReconstructButton({ provenance }: { provenance: Provenance }) {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Reconstruction>();
  const [error, setError] = useState<ApiError>();

  async function run() {
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    try {
      setResult(await reconstruct(provenance.deployment_object_id));
    } catch (cause) {
      setError(toApiError(cause));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="reconstruction">
      <button onClick={run} disabled={busy}>
        {busy ? "Rendering…" : "Re-render and compare"}
      </button>
      <div aria-live="polite" data-testid="reconstruction">
        {error && <ErrorBox error={error} what="reconstruction" />}
        {result && <Verdict result={result} />}
      </div>
    </div>
  );
}

function Verdict({ result }: { result: Reconstruction }) {
  const { answer, difference } = result;
  if (answer.identical) {
    return (
      <p className="ok verdict">
        identical: version {answer.template_version} with the recorded parameters renders the stored YAML byte for byte
        (sha256 {shortChecksum(answer.rendered_checksum)}…)
      </p>
    );
  }
  const checksums = `stored sha256 ${shortChecksum(answer.stored_checksum)}…, rendered ${shortChecksum(answer.rendered_checksum)}…`;
  if (!difference || difference.identical) {
    return (
      <p className="bad verdict">
        different: the YAML reads the same byte for byte, but the checksums differ ({checksums})
      </p>
    );
  }
  return (
    <div className="bad verdict">
      <p>
        different: the first difference is at byte offset {difference.offset} (line {difference.line}, column{" "}
        {difference.column}); {checksums}
      </p>
      <pre className="first-difference">
        <span className="diff-removed">- {difference.storedLine}</span>
        {"\n"}
        <span className="diff-added">+ {difference.renderedLine}</span>
      </pre>
    </div>
  );
}
