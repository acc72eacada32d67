// One request's state for a view: loading, its value or its error, and a
// reload. A load that a newer one replaced never overwrites it.
import { useCallback, useEffect, useRef, useState } from "react";
import { toApiError, type ApiError } from "./api";

export interface Loaded<T> {
  value: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload: () => void;
}

export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ value?: T; error?: ApiError; loading: boolean }>({ loading: true });
  const generation = useRef(0);
  const run = useCallback(load, deps);
  const reload = useCallback(() => {
    const mine = ++generation.current;
    setState((previous) => ({ ...previous, loading: true }));
    run().then(
      (value) => mine === generation.current && setState({ value, loading: false }),
      (error) => mine === generation.current && setState({ error: toApiError(error), loading: false }),
    );
  }, [run]);
  useEffect(reload, [reload]);
  return { value: state.value, error: state.error, loading: state.loading, reload };
}
