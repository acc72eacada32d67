// Hash routes (#/templates/ID): the broker serves one index.html, and a
// reload or a shared link lands on the same view.
import { useEffect, useState } from "react";

function currentPath(): string {
  const hash = window.location.hash.replace(/^#/, "");
  return hash.startsWith("/") ? hash : "/templates";
}

export function navigate(path: string): void {
  window.location.hash = path;
}

export function usePath(): string {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const changed = () => setPath(currentPath());
    window.addEventListener("hashchange", changed);
    return () => window.removeEventListener("hashchange", changed);
  }, []);
  return path;
}

// "/templates/:id/edit" against "/templates/abc/edit" gives {id: "abc"}.
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split("/");
  const have = path.split("?")[0].split("/");
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(":")) params[want[i].slice(1)] = decodeURIComponent(have[i]);
    else if (want[i] !== have[i]) return null;
  }
  return params;
}

export function href(path: string): string {
  return `#${path}`;
}
