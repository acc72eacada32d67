// Where a deployment object came from (template, version, parameters) and
// the reconstruction: render it again and compare with what was stored.
import { useState } from "react";
import { ApiError } from "../../api";
import { ErrorBox } from "../../components/Status";
import { reconstruct, type Reconstruction } from "../../lib/reconstruct";
import { href } from "../../router";
import type { Provenance } from "./types";
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
      setResult(await reconstruct(provenance));
    } catch (cause) {
      setError(cause instanceof ApiError ? cause : new ApiError(0, "client_error", String(cause)));
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
        {error && <ErrorBox error={error} what="rendering" />}
        {result && <Verdict result={result} />}
      </div>
    </div>
  );
}

function Verdict({ result }: { result: Reconstruction }) {
  const { comparison, rendered, stored } = result;
  if (comparison.identical) {
    return (
      <p className="ok verdict">
        identical: version {rendered.template_version} with the recorded parameters renders the stored YAML byte for
        byte (sha256 {rendered.checksum.slice(0, 12)}…)
      </p>
    );
  }
  return (
    <div className="bad verdict">
      <p>
        different: the first difference is at line {comparison.line}, column {comparison.column} (byte{" "}
        {comparison.offset}); stored sha256 {stored.yaml_checksum.slice(0, 12)}…, rendered {rendered.checksum.slice(0, 12)}…
      </p>
      <pre className="first-difference">
        <span className="diff-removed">- {comparison.storedLine}</span>
        {"\n"}
        <span className="diff-added">+ {comparison.renderedLine}</span>
      </pre>
    </div>
  );
}
