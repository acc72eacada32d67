// Loading and error states every view shows the same way.
import type { ReactNode } from "react";
import type { ApiError } from "../api";

export function Loading({ what }: { what: string }) {
  return (
    <p className="loading" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function ErrorBox({ error, what }: { error: ApiError; what?: string }) {
  if (error.notServed) {
    return (
      <p className="notice" role="status" data-testid="not-served">
        This broker does not serve {what ?? "this view"} yet.
      </p>
    );
  }
  const where = [
    error.details?.pointer ? `at ${error.details.pointer}` : "",
    error.details?.line ? `line ${error.details.line}:${error.details.column ?? 0}` : "",
  ]
    .filter(Boolean)
    .join(", ");
  return (
    <div className="error" role="alert">
      <strong>{error.code}</strong>
      {error.status ? ` (${error.status})` : ""}: {error.message}
      {where && <div className="where">{where}</div>}
      {error.details?.violations && (
        <ul>
          {error.details.violations.map((violation, index) => (
            <li key={index}>
              <code>{violation.pointer ?? violation.schema_pointer}</code> {violation.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

// Loading, error or the content, for a useLoad result.
export function Loaded<T>({
  state,
  what,
  children,
}: {
  state: { value: T | undefined; error: ApiError | undefined; loading: boolean };
  what: string;
  children: (value: T) => ReactNode;
}) {
  if (state.error) return <ErrorBox error={state.error} what={what} />;
  if (state.value === undefined) return <Loading what={what} />;
  return <>{children(state.value)}</>;
}
