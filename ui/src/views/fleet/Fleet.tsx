// The fleet: agents with status, cluster, heartbeat age, labels, targets and
// health. An admin reads the broker's fleet records; a generator sees the
// agents registered with it, whose labels and targets only an admin reads.
import { useEffect, useState } from "react";
import { get } from "../../api";
import { Paged } from "../../components/Paged";
import { Loaded } from "../../components/Status";
import { href } from "../../router";
import { useSession } from "../../session";
import { useLoad } from "../../useLoad";
import { ago, secondsSince, shortId } from "../../lib/format";
import { Tags } from "../../components/Tags";
import type { Label, Stack } from "../../types";
import type { Agent, AgentTarget, FleetRecord } from "../../types";
import "../stacks/stacks.css";

// One row, whichever endpoint it came from; heartbeat_age as of `loadedAt`.
interface Row {
  id: string;
  name: string;
  cluster: string;
  status: string;
  heartbeatAge: number | null;
  connected?: boolean;
  reachable?: boolean | null;
  failing?: number;
  degraded?: number;
  pendingObjects?: number;
}

// The clock the heartbeat ages count from, ticking so that they stay true.
function useNow(everyMs: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), everyMs);
    return () => window.clearInterval(timer);
  }, [everyMs]);
  return now;
}

export function Fleet(_props: { params: Record<string, string> }) {
  const { identity } = useSession();
  const fleet = useLoad(async () => {
    const loadedAt = Date.now();
    if (identity.admin) {
      const [records, stacks] = await Promise.all([get<FleetRecord[]>("/fleet"), get<Stack[]>("/stacks")]);
      const rows: Row[] = records.map((record) => ({
        id: record.agent_id,
        name: record.name,
        cluster: record.cluster_name,
        status: record.status,
        heartbeatAge: record.heartbeat_age_seconds ?? null,
        connected: record.ws_connected,
        reachable: record.k8s_reachable,
        failing: record.health_failing,
        degraded: record.health_degraded,
        pendingObjects: record.pending_object_count,
      }));
      return { rows, loadedAt, stackNames: new Map(stacks.map((stack) => [stack.id, stack.name])) };
    }
    const agents = await get<Agent[]>("/agents");
    const rows: Row[] = agents.map((agent) => ({
      id: agent.id,
      name: agent.name,
      cluster: agent.cluster_name,
      status: agent.status,
      heartbeatAge: secondsSince(agent.last_heartbeat, loadedAt),
      reachable: agent.k8s_reachable,
    }));
    return { rows, loadedAt, stackNames: new Map<string, string>() };
  }, [identity.admin]);
  const now = useNow(5000);
  const [filter, setFilter] = useState("");

  return (
    <>
      <div className="view-head">
        <h2>Fleet</h2>
        <span className="muted">{identity.admin ? "every agent" : "the agents registered with your generator"}</span>
      </div>
      <div className="toolbar">
        <label>
          Filter by name or cluster
          <input type="search" value={filter} onChange={(event) => setFilter(event.target.value)} />
        </label>
        <button onClick={fleet.reload} disabled={fleet.loading}>
          Reload
        </button>
      </div>
      <Loaded state={fleet} what="the fleet">
        {({ rows, loadedAt, stackNames }) => {
          const needle = filter.trim().toLowerCase();
          const shown = needle
            ? rows.filter((row) => `${row.name} ${row.cluster}`.toLowerCase().includes(needle))
            : rows;
          if (shown.length === 0) return <p className="notice">{rows.length === 0 ? "No agents yet." : "No agent matches."}</p>;
          const elapsed = Math.max(0, (now - loadedAt) / 1000);
          return (
            <Paged items={shown} label="agents">
              {(page) => (
                <table data-testid="fleet">
                  <thead>
                    <tr>
                      <th>Agent</th>
                      <th>Cluster</th>
                      <th>Status</th>
                      <th>Heartbeat</th>
                      {identity.admin && <th>Labels</th>}
                      {identity.admin && <th>Targets</th>}
                      <th>Health</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.map((row) => (
                      <tr key={row.id}>
                        <td>
                          <a href={href(`/fleet/agents/${row.id}`)}>{row.name}</a>
                        </td>
                        <td>{row.cluster}</td>
                        <td>
                          {row.status}
                          {row.connected !== undefined && (
                            <span className="muted"> {row.connected ? "· connected" : "· not connected"}</span>
                          )}
                        </td>
                        <td>{ago(row.heartbeatAge === null ? null : row.heartbeatAge + elapsed)}</td>
                        {identity.admin && (
                          <td>
                            <AgentLabels agentId={row.id} />
                          </td>
                        )}
                        {identity.admin && (
                          <td>
                            <AgentTargets agentId={row.id} stackNames={stackNames} />
                          </td>
                        )}
                        <td>
                          <HealthCell row={row} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </Paged>
          );
        }}
      </Loaded>
    </>
  );
}

// What the agent measured: its objects' health (fleet records only) and
// whether it reaches its cluster's API.
function HealthCell({ row }: { row: Row }) {
  const parts: string[] = [];
  if (row.failing !== undefined) {
    parts.push(
      row.failing || row.degraded
        ? `${row.failing} failing, ${row.degraded ?? 0} degraded`
        : "no failing or degraded objects",
    );
  }
  if (row.reachable === true) parts.push("cluster API reachable");
  else if (row.reachable === false) parts.push("cluster API unreachable");
  else parts.push("cluster API not reported");
  const bad = Boolean(row.failing) || row.reachable === false;
  return <span className={bad ? "bad" : "muted"}>{parts.join("; ")}</span>;
}

function AgentLabels({ agentId }: { agentId: string }) {
  const labels = useLoad(() => get<Label[]>(`/agents/${encodeURIComponent(agentId)}/labels`), [agentId]);
  if (labels.error) return <span className="bad">{labels.error.message}</span>;
  if (!labels.value) return <span className="muted">…</span>;
  return <Tags labels={labels.value} />;
}

export function AgentTargets({ agentId, stackNames }: { agentId: string; stackNames: Map<string, string> }) {
  const targets = useLoad(() => get<AgentTarget[]>(`/agents/${encodeURIComponent(agentId)}/targets`), [agentId]);
  if (targets.error) return <span className="bad">{targets.error.message}</span>;
  if (!targets.value) return <span className="muted">…</span>;
  if (targets.value.length === 0) return <span className="muted">none</span>;
  return (
    <span className="tags">
      {targets.value.map((target) => (
        <a key={target.stack_id} className="tag" href={href(`/stacks/${target.stack_id}`)}>
          {stackNames.get(target.stack_id) ?? shortId(target.stack_id)}
        </a>
      ))}
    </span>
  );
}
