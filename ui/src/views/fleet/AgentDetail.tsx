// One agent: what it is, its labels and annotations, the stacks it
// targets, and its events. An admin's view (a generator is refused agents'
// details, and the view says so).
import { get } from "../../api";
import { Paged } from "../../components/Paged";
import { Loaded } from "../../components/Status";
import { href } from "../../router";
import { useLoad } from "../../useLoad";
import { ago, secondsSince, shortId } from "../../lib/format";
import { LoadedOrRefused } from "../../components/Refusal";
import { Tags } from "../../components/Tags";
import type { Annotation, Label, Stack } from "../../types";
import { AgentTargets } from "./Fleet";
import type { Agent, AgentEvent } from "../../types";
import "../stacks/stacks.css";

export function AgentDetail({ params }: { params: Record<string, string> }) {
  const id = encodeURIComponent(params.id);
  const agent = useLoad(async () => {
    const [found, labels, annotations] = await Promise.all([
      get<Agent>(`/agents/${id}`),
      get<Label[]>(`/agents/${id}/labels`),
      get<Annotation[]>(`/agents/${id}/annotations`),
    ]);
    return { agent: found, labels, annotations, loadedAt: Date.now() };
  }, [id]);

  return (
    <>
      <div className="view-head">
        <h2>Agent</h2>
        <a href={href("/fleet")}>the fleet</a>
      </div>
      <LoadedOrRefused state={agent} what="this agent's details">
        {({ agent: found, labels, annotations, loadedAt }) => (
          <>
            <dl className="facts">
              <dt>Name</dt>
              <dd>{found.name}</dd>
              <dt>Id</dt>
              <dd className="mono">{found.id}</dd>
              <dt>Cluster</dt>
              <dd>{found.cluster_name}</dd>
              <dt>Status</dt>
              <dd>{found.status}</dd>
              <dt>Heartbeat</dt>
              <dd>{ago(secondsSince(found.last_heartbeat, loadedAt))}</dd>
              <dt>Labels and annotations</dt>
              <dd>
                <Tags labels={labels} annotations={annotations} />
              </dd>
              <dt>Targets</dt>
              <dd>
                <Targets agentId={found.id} />
              </dd>
            </dl>
            <Events agentId={found.id} />
          </>
        )}
      </LoadedOrRefused>
    </>
  );
}

function Targets({ agentId }: { agentId: string }) {
  const stacks = useLoad(() => get<Stack[]>("/stacks"), []);
  return (
    <Loaded state={stacks} what="stacks">
      {(all) => <AgentTargets agentId={agentId} stackNames={new Map(all.map((stack) => [stack.id, stack.name]))} />}
    </Loaded>
  );
}

function Events({ agentId }: { agentId: string }) {
  const events = useLoad(() => get<AgentEvent[]>(`/agents/${encodeURIComponent(agentId)}/events`), [agentId]);
  return (
    <section aria-label="Events">
      <h3>Events</h3>
      <LoadedOrRefused state={events} what="the agent's events">
        {(list) =>
          list.length === 0 ? (
            <p className="notice">No events reported yet.</p>
          ) : (
            <Paged items={list} label="events">
              {(rows) => (
                <table>
                  <thead>
                    <tr>
                      <th>When</th>
                      <th>Type</th>
                      <th>Status</th>
                      <th>Object</th>
                      <th>Message</th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((event) => (
                      <tr key={event.id}>
                        <td>{event.created_at}</td>
                        <td>{event.event_type}</td>
                        <td>{event.status}</td>
                        <td>
                          <a href={href(`/objects/${event.deployment_object_id}`)}>
                            {shortId(event.deployment_object_id)}
                          </a>
                        </td>
                        <td>{event.message ?? ""}</td>
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
