// Webhook subscriptions and, on demand, each one's deliveries. An admin's
// view: others are refused, and the view says so.
import { useState } from "react";
import { get } from "../../api";
import { Paged } from "../../components/Paged";
import { useLoad } from "../../useLoad";
import { LoadedOrRefused } from "../../components/Refusal";
import "../stacks/stacks.css";

interface Webhook {
  id: string;
  name: string;
  enabled: boolean;
  event_types: string[];
  has_url: boolean;
  max_retries: number;
  timeout_seconds: number;
  target_labels?: string[] | null;
  created_at: string;
}

interface Delivery {
  id: string;
  event_type: string;
  status: string;
  attempts: number;
  created_at: string;
  completed_at?: string | null;
  next_retry_at?: string | null;
  last_error?: string | null;
}

const DELIVERY_STATUSES = ["", "pending", "acquired", "success", "failed", "dead"];

export function Webhooks(_props: { params: Record<string, string> }) {
  const webhooks = useLoad(() => get<Webhook[]>("/webhooks"), []);
  return (
    <>
      <div className="view-head">
        <h2>Webhooks</h2>
        <button onClick={webhooks.reload} disabled={webhooks.loading}>
          Reload
        </button>
      </div>
      <LoadedOrRefused state={webhooks} what="webhooks">
        {(list) =>
          list.length === 0 ? (
            <p className="notice">No webhook subscriptions.</p>
          ) : (
            <Paged items={list} label="webhooks">
              {(rows) => (
                <ul className="plain-list">
                  {rows.map((webhook) => (
                    <li key={webhook.id}>
                      <WebhookEntry webhook={webhook} />
                    </li>
                  ))}
                </ul>
              )}
            </Paged>
          )
        }
      </LoadedOrRefused>
    </>
  );
}

function WebhookEntry({ webhook }: { webhook: Webhook }) {
  const [open, setOpen] = useState(false);
  return (
    <details onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>
        <strong>{webhook.name}</strong> {webhook.enabled ? "" : <span className="tag">disabled</span>}{" "}
        <span className="muted">
          {webhook.event_types.join(", ")} · {webhook.max_retries} retries · {webhook.timeout_seconds} s timeout
          {webhook.target_labels?.length ? ` · delivered by agents labelled ${webhook.target_labels.join(", ")}` : ""}
        </span>
      </summary>
      {open && <Deliveries webhookId={webhook.id} />}
    </details>
  );
}

function Deliveries({ webhookId }: { webhookId: string }) {
  const [status, setStatus] = useState("");
  const deliveries = useLoad(() => {
    const query = new URLSearchParams({ limit: "1000" });
    if (status) query.set("status", status);
    return get<Delivery[]>(`/webhooks/${encodeURIComponent(webhookId)}/deliveries?${query}`);
  }, [webhookId, status]);
  return (
    <div className="deliveries">
      <div className="toolbar">
        <label>
          Status
          <select value={status} onChange={(event) => setStatus(event.target.value)}>
            {DELIVERY_STATUSES.map((value) => (
              <option key={value} value={value}>
                {value || "any"}
              </option>
            ))}
          </select>
        </label>
      </div>
      <LoadedOrRefused state={deliveries} what="deliveries">
        {(list) =>
          list.length === 0 ? (
            <p className="notice">No deliveries{status ? ` with status ${status}` : ""}.</p>
          ) : (
            <Paged items={list} label="deliveries">
              {(rows) => (
                <table>
                  <thead>
                    <tr>
                      <th>Created</th>
                      <th>Event</th>
                      <th>Status</th>
                      <th>Attempts</th>
                      <th>Completed or next retry</th>
                      <th>Last error</th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((delivery) => (
                      <tr key={delivery.id}>
                        <td>{delivery.created_at}</td>
                        <td>{delivery.event_type}</td>
                        <td className={delivery.status === "dead" || delivery.status === "failed" ? "bad" : ""}>
                          {delivery.status}
                        </td>
                        <td>{delivery.attempts}</td>
                        <td>{delivery.completed_at ?? delivery.next_retry_at ?? ""}</td>
                        <td>{delivery.last_error ?? ""}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </Paged>
          )
        }
      </LoadedOrRefused>
    </div>
  );
}
