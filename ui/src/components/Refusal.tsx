// A section the broker will not show this PAK (403), or does not serve yet
// (404 not_found), said plainly instead of as a failure; anything else is
// an error.
import type { ReactNode } from "react";
import type { ApiError } from "../api";
import { ErrorBox, Loading } from "./Status";

export function Unavailable({ error, what }: { error: ApiError; what: string }) {
  if (error.status === 403) {
    return (
      <p className="refusal" role="status" data-testid="refused">
        The broker refuses {what} to this PAK: {error.message} <span className="muted">({error.code})</span>
      </p>
    );
  }
  return <ErrorBox error={error} what={what} />;
}

// Loaded (components/Status.tsx) with refusals told apart.
export function LoadedOrRefused<T>({
  state,
  what,
  children,
}: {
  state: { value: T | undefined; error: ApiError | undefined };
  what: string;
  children: (value: T) => ReactNode;
}) {
  if (state.error) return <Unavailable error={state.error} what={what} />;
  if (state.value === undefined) return <Loading what={what} />;
  return <>{children(state.value)}</>;
}
