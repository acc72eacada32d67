// A PAK typed once; the broker says whose it is, or why it refuses it.
import { useState, type FormEvent } from "react";
import { ApiError, toApiError, whoAmI, type Identity } from "../api";
import { ErrorBox } from "../components/Status";

// `notice`: why an earlier session ended, if the broker ended it.
export function SignIn({
  onSignedIn,
  notice,
}: {
  onSignedIn: (pak: string, identity: Identity) => void;
  notice?: string;
}) {
  const [pak, setPak] = useState("");
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const identity = await whoAmI(pak.trim());
      if (identity.agent) {
        setError(new ApiError(403, "agent_pak", "this is an agent's PAK: the console takes an admin's or a generator's"));
      } else {
        onSignedIn(pak.trim(), identity);
      }
    } catch (cause) {
      setError(toApiError(cause));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="sign-in">
      <h1>Sindri console</h1>
      {notice && !error && (
        <p className="error" role="alert" data-testid="session-ended">
          {notice}
        </p>
      )}
      <form onSubmit={submit}>
        <label htmlFor="pak">Prefixed API key (PAK)</label>
        <input
          id="pak"
          type="password"
          autoComplete="off"
          autoFocus
          value={pak}
          onChange={(event) => setPak(event.target.value)}
          placeholder="brokkr_…"
        />
        <button type="submit" disabled={busy || pak.trim() === ""}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
        <p className="hint">The key stays in this tab's session storage and is sent only to this broker.</p>
      </form>
      {error && <ErrorBox error={error} />}
    </main>
  );
}
