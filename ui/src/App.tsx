// The shell: sign-in, navigation and the route table. Heavy views (the
// editor, the parameter form) load on demand.
import { lazy, Suspense, useCallback, useEffect, useState, type ComponentType, type ReactNode } from "react";
import {
  get,
  PAK_REFUSED_EVENT,
  PakRefusedEvent,
  storePak,
  storedPak,
  toApiError,
  whoAmI,
  type ApiError,
  type Identity,
} from "./api";
import { ErrorBox, Loading } from "./components/Status";
import { href, matchPath, usePath } from "./router";
import { describeIdentity, SessionContext } from "./session";
import { SignIn } from "./views/SignIn";
import { TemplateList } from "./views/templates/TemplateList";
import { TemplateDetail } from "./views/templates/TemplateDetail";
import { StackList } from "./views/stacks/StackList";
import { StackDetail } from "./views/stacks/StackDetail";
import { DeploymentObject } from "./views/stacks/DeploymentObject";
import { Fleet } from "./views/fleet/Fleet";
import { AgentDetail } from "./views/fleet/AgentDetail";
import { Webhooks } from "./views/fleet/Webhooks";
import { WorkOrders } from "./views/fleet/WorkOrders";
import { AuditLog } from "./views/fleet/AuditLog";

const TemplateEditor = lazy(() => import("./views/templates/TemplateEditor"));
const Instantiate = lazy(() => import("./views/templates/Instantiate"));

type View = ComponentType<{ params: Record<string, string> }>;

// First match wins.
const ROUTES: [string, View][] = [
  ["/templates", TemplateList],
  ["/templates/new", TemplateEditor],
  ["/templates/:id", TemplateDetail],
  ["/templates/:id/edit", TemplateEditor],
  ["/templates/:id/instantiate", Instantiate],
  ["/stacks", StackList],
  ["/stacks/:id", StackDetail],
  ["/objects/:id", DeploymentObject],
  ["/fleet", Fleet],
  ["/fleet/agents/:id", AgentDetail],
  ["/webhooks", Webhooks],
  ["/work-orders", WorkOrders],
  ["/audit", AuditLog],
];

const NAV: [string, string, boolean][] = [
  ["/templates", "Templates", false],
  ["/stacks", "Stacks", false],
  ["/fleet", "Fleet", false],
  ["/webhooks", "Webhooks", true],
  ["/work-orders", "Work orders", true],
  ["/audit", "Audit log", true],
];

function route(path: string): ReactNode {
  for (const [pattern, View] of ROUTES) {
    const params = matchPath(pattern, path);
    if (params) return <View params={params} />;
  }
  return <p className="notice">No such view: {path}</p>;
}

export function App() {
  const [identity, setIdentity] = useState<Identity | null>(null);
  const [restoring, setRestoring] = useState(storedPak() !== null);
  const [generatorName, setGeneratorName] = useState<string>();
  const path = usePath();

  // A generator is shown by its name; its id stands in until it is known.
  useEffect(() => {
    setGeneratorName(undefined);
    if (!identity?.generator) return;
    get<{ name: string }>(`/generators/${identity.generator}`).then(
      (generator) => setGeneratorName(generator.name),
      () => undefined,
    );
  }, [identity]);

  const [restoreError, setRestoreError] = useState<ApiError>();
  const [refusal, setRefusal] = useState<string>();

  // A reload keeps the session: the stored PAK is asked again. Only the
  // broker's refusal drops it; a broker out of reach may be asked again.
  const restore = useCallback(() => {
    const pak = storedPak();
    if (!pak) return;
    setRestoring(true);
    setRestoreError(undefined);
    whoAmI(pak)
      .then(setIdentity, (cause) => {
        const error = toApiError(cause);
        if (error.status === 401) storePak(null);
        else setRestoreError(error);
      })
      .finally(() => setRestoring(false));
  }, []);
  useEffect(restore, [restore]);

  // A PAK revoked while in use ends the session, saying why.
  useEffect(() => {
    const refused = (event: Event) => {
      storePak(null);
      setIdentity(null);
      setRefusal(`Your PAK is no longer accepted: ${(event as PakRefusedEvent).error.message}`);
    };
    window.addEventListener(PAK_REFUSED_EVENT, refused);
    return () => window.removeEventListener(PAK_REFUSED_EVENT, refused);
  }, []);

  if (restoring) return <Loading what="the session" />;
  if (restoreError) {
    return (
      <main className="sign-in">
        <h1>Sindri console</h1>
        <ErrorBox error={restoreError} what="the session" />
        <button onClick={restore}>Retry</button>{" "}
        <button
          onClick={() => {
            storePak(null);
            setRestoreError(undefined);
          }}
        >
          Sign in with another PAK
        </button>
      </main>
    );
  }
  if (!identity) {
    return (
      <SignIn
        notice={refusal}
        onSignedIn={(pak, who) => {
          storePak(pak);
          setRefusal(undefined);
          setIdentity(who);
        }}
      />
    );
  }
  const signOut = () => {
    storePak(null);
    setIdentity(null);
  };
  const section = "/" + path.split("?")[0].split("/")[1];
  return (
    <SessionContext.Provider value={{ identity, signOut }}>
      <header className="top">
        <a className="brand" href={href("/templates")}>
          Sindri
        </a>
        <nav aria-label="Main">
          {NAV.filter(([, , adminOnly]) => identity.admin || !adminOnly).map(([to, label]) => (
            <a key={to} href={href(to)} aria-current={section === to ? "page" : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <span className="who" data-testid="identity">
          {describeIdentity(identity, generatorName)}
        </span>
        <button onClick={signOut}>Sign out</button>
      </header>
      <main className="content">
        <Suspense fallback={<Loading what="the view" />}>{route(path)}</Suspense>
      </main>
    </SessionContext.Provider>
  );
}
