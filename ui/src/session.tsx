// Who is signed in: the PAK (sessionStorage only, never a URL or a log) and
// what the broker says it belongs to.
import { createContext, useContext } from "react";
import type { Identity } from "./api";

export interface Session {
  identity: Identity;
  signOut: () => void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession outside a signed-in console");
  return session;
}

// `generatorName` when the broker told it, else the generator's id.
export function describeIdentity(identity: Identity, generatorName?: string): string {
  if (identity.admin) return "admin";
  if (identity.generator) return `generator ${generatorName ?? identity.generator}`;
  if (identity.agent) return `agent ${identity.agent}`;
  return "unknown";
}
