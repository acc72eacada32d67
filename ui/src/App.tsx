// The shell: sign-in, navigation and the route table. Heavy views (the
// editor, the parameter form) load on demand.
import { lazy, Suspense, useEffect, useState, type ComponentType, type ReactNode } from "react";
import { storePak, storedPak, whoAmI, type Identity } from "./api";
import { Loading } from "./components/Status";
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
  const path = usePath();

  // A reload keeps the session: the stored PAK is asked again.
  useEffect(() => {
    const pak = storedPak();
    if (!pak) return;
    whoAmI(pak)
      .then(setIdentity, () => storePak(null))
      .finally(() => setRestoring(false));
  }, []);

  if (restoring) return <Loading what="the session" />;
  if (!identity) {
    return (
      <SignIn
        onSignedIn={(pak, who) => {
          storePak(pak);
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
          {describeIdentity(identity)}
        </span>
        <button onClick={signOut}>Sign out</button>
      </header>
      <main className="content">
        <Suspense fallback={<Loading what="the view" />}>{route(path)}</Suspense>
      </main>
    </SessionContext.Provider>
  );
}
