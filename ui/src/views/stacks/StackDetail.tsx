// One stack: its labels and annotations, its deployment objects (which came
// from templates), the agents that target it, and its health and events as
// far as the broker serves them to this PAK.
import { useState } from "react";
import { get } from "../../api";
import { Paged } from "../../components/Paged";
import { Loaded } from "../../components/Status";
import { href } from "../../router";
import { useSession } from "../../session";
import { useLoad } from "../../useLoad";
import { shortChecksum } from "../../lib/format";
import { LoadedOrRefused } from "../../components/Refusal";
import { loadStackTags } from "./StackTags";
import { Tags } from "../../components/Tags";
import type { Agent, AgentTarget, DeploymentObject, Stack, StackProvenance } from "../../types";
import "./stacks.css";

interface StackHealth {
  overall_status: string;
  deployment_objects: { id: string; status: string; healthy_agents: number; degraded_agents: number; failing_agents: number }[];
}

interface K8sEvent {
  id: string;
  agent_id: string;
  observed_at: string;
  reason: string;
  message: string;
  event_type: string;
}

interface EventHistory {
  events: K8sEvent[];
  retention: { effective_retention_seconds: number };
}

export function StackDetail({ params }: { params: Record<string, string> }) {
  const id = encodeURIComponent(params.id);
  const stack = useLoad(async () => {
    const [found, [labels, annotations]] = await Promise.all([get<Stack>(`/stacks/${id}`), loadStackTags(params.id)]);
    return { stack: found, labels, annotations };
  }, [id]);

  return (
    <Loaded state={stack} what="the stack">
      {({ stack: found, labels, annotations }) => (
        <>
          <div className="view-head">
            <h2>Stack {found.name}</h2>
            <a href={href("/stacks")}>all stacks</a>
          </div>
          <dl className="facts">
            <dt>Id</dt>
            <dd className="mono">{found.id}</dd>
            <dt>Description</dt>
            <dd>{found.description ?? <span className="muted">none</span>}</dd>
            <dt>Generator</dt>
            <dd className="mono">{found.generator_id}</dd>
            <dt>Labels and annotations</dt>
            <dd>
              <Tags labels={labels} annotations={annotations} />
            </dd>
            <dt>Created</dt>
            <dd>{found.created_at}</dd>
          </dl>
          <Objects stackId={found.id} />
          <TargetingAgents stackId={found.id} />
          <Health stackId={found.id} />
          <Events stackId={found.id} />
        </>
      )}
    </Loaded>
  );
}

function Objects({ stackId }: { stackId: string }) {
  const id = encodeURIComponent(stackId);
  const objects = useLoad(async () => {
    const [list, provenance] = await Promise.all([
      get<DeploymentObject[]>(`/stacks/${id}/deployment-objects`),
      get<StackProvenance[]>(`/stacks/${id}/provenance`),
    ]);
    const newestFirst = [...list].sort((a, b) => b.sequence_id - a.sequence_id);
    return { objects: newestFirst, origins: new Map(provenance.map((entry) => [entry.deployment_object_id, entry])) };
  }, [id]);
  return (
    <section aria-label="Deployment objects">
      <h3>Deployment objects</h3>
      <LoadedOrRefused state={objects} what="the stack's deployment objects">
        {({ objects: list, origins }) =>
          list.length === 0 ? (
            <p className="notice">No deployment objects yet.</p>
          ) : (
            <Paged items={list} label="objects">
              {(rows) => (
                <table data-testid="deployment-objects">
                  <thead>
                    <tr>
                      <th>Sequence</th>
                      <th>Object</th>
                      <th>Checksum</th>
                      <th>Created</th>
                      <th>From template</th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((object) => {
                      const origin = origins.get(object.id);
                      return (
                        <tr key={object.id}>
                          <td>{object.sequence_id}</td>
                          <td>
                            <a href={href(`/objects/${object.id}`)}>{object.id}</a>
                            {object.is_deletion_marker && <span className="tag">deletion marker</span>}
                          </td>
                          <td className="checksum" title={object.yaml_checksum}>
                            {shortChecksum(object.yaml_checksum)}
                          </td>
                          <td>{object.created_at}</td>
                          <td>
                            {origin ? (
                              <a href={href(`/templates/${origin.template_id}`)}>
                                {origin.template_name} v{origin.template_version}
                              </a>
                            ) : (
                              <span className="muted">submitted as YAML</span>
                            )}
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              )}
            </Paged>
          )
        }
      </LoadedOrRefused>
    </section>
  );
}

// No endpoint answers "who targets this stack": an admin may read every
// agent's targets, so the console asks each agent, one request per agent;
// on a large fleet that is costly, so only when asked. A generator may not
// read agents' targets at all.
function TargetingAgents({ stackId }: { stackId: string }) {
  const { identity } = useSession();
  const [asked, setAsked] = useState(false);
  return (
    <section aria-label="Agents targeting this stack">
      <h3>Agents targeting this stack</h3>
      {!identity.admin ? (
        <p className="notice">Only an admin may read which agents target a stack.</p>
      ) : asked ? (
        <AgentsTargeting stackId={stackId} />
      ) : (
        <p>
          <button onClick={() => setAsked(true)}>Show agents targeting this stack</button>{" "}
          <span className="muted">(asks the broker for every agent's targets, one request per agent)</span>
        </p>
      )}
    </section>
  );
}

function AgentsTargeting({ stackId }: { stackId: string }) {
  const agents = useLoad(async () => {
    const all = await get<Agent[]>("/agents");
    const targets = await Promise.all(
      all.map((agent) => get<AgentTarget[]>(`/agents/${encodeURIComponent(agent.id)}/targets`)),
    );
    return all.filter((_, index) => targets[index].some((target) => target.stack_id === stackId));
  }, [stackId]);
  return (
    <LoadedOrRefused state={agents} what="the agents' targets">
      {(targeting) =>
        targeting.length === 0 ? (
          <p className="notice">No agent targets this stack.</p>
        ) : (
          <ul>
            {targeting.map((agent) => (
              <li key={agent.id}>
                <a href={href(`/fleet/agents/${agent.id}`)}>{agent.name}</a> in cluster {agent.cluster_name} (
                {agent.status})
              </li>
            ))}
          </ul>
        )
      }
    </LoadedOrRefused>
  );
}

function Health({ stackId }: { stackId: string }) {
  const health = useLoad(() => get<StackHealth>(`/stacks/${encodeURIComponent(stackId)}/health`), [stackId]);
  return (
    <section aria-label="Health">
      <h3>Health</h3>
      <LoadedOrRefused state={health} what="the stack's health">
        {(found) => (
          <>
            <p>
              Overall: <span className={`status-badge ${badge(found.overall_status)}`}>{found.overall_status}</span>
            </p>
            {found.deployment_objects.length > 0 && (
              <table>
                <thead>
                  <tr>
                    <th>Object</th>
                    <th>Status</th>
                    <th>Healthy</th>
                    <th>Degraded</th>
                    <th>Failing</th>
                  </tr>
                </thead>
                <tbody>
                  {found.deployment_objects.map((object) => (
                    <tr key={object.id}>
                      <td>
                        <a href={href(`/objects/${object.id}`)}>{object.id}</a>
                      </td>
                      <td>{object.status}</td>
                      <td>{object.healthy_agents}</td>
                      <td>{object.degraded_agents}</td>
                      <td>{object.failing_agents}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </>
        )}
      </LoadedOrRefused>
    </section>
  );
}

function badge(status: string): string {
  if (status === "healthy") return "ok";
  if (status === "failing" || status === "degraded") return "bad";
  return "";
}

function Events({ stackId }: { stackId: string }) {
  const events = useLoad(() => get<EventHistory>(`/stacks/${encodeURIComponent(stackId)}/events`), [stackId]);
  return (
    <section aria-label="Events">
      <h3>Kubernetes events</h3>
      <LoadedOrRefused state={events} what="the stack's events">
        {(found) =>
          found.events.length === 0 ? (
            <p className="notice">
              No events in the last {Math.round(found.retention.effective_retention_seconds / 60)} minutes the broker keeps.
            </p>
          ) : (
            <Paged items={found.events} label="events">
              {(rows) => (
                <table>
                  <thead>
                    <tr>
                      <th>Observed</th>
                      <th>Type</th>
                      <th>Reason</th>
                      <th>Message</th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((event) => (
                      <tr key={event.id}>
                        <td>{event.observed_at}</td>
                        <td>{event.event_type}</td>
                        <td>{event.reason}</td>
                        <td>{event.message}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </Paged>
          )
        }
      </LoadedOrRefused>
    </section>
  );
}
