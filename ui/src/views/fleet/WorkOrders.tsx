// Work orders waiting or claimed, and the log of completed ones. An admin's
// view: others are refused, and the view says so.
import { useState } from "react";
import { get } from "../../api";
import { Paged } from "../../components/Paged";
import { useLoad } from "../../useLoad";
import { LoadedOrRefused } from "../../components/Refusal";
import "../stacks/stacks.css";

interface WorkOrder {
  id: string;
  work_type: string;
  status: string;
  retry_count: number;
  max_retries: number;
  claimed_by?: string | null;
  last_error?: string | null;
  created_at: string;
}

interface LogEntry {
  id: string;
  work_type: string;
  success: boolean;
  retries_attempted: number;
  claimed_by?: string | null;
  result_message?: string | null;
  completed_at: string;
}

const STATUSES = ["", "PENDING", "CLAIMED", "RETRY_PENDING"];

export function WorkOrders(_props: { params: Record<string, string> }) {
  const [status, setStatus] = useState("");
  const orders = useLoad(
    () => get<WorkOrder[]>(status ? `/work-orders?status=${encodeURIComponent(status)}` : "/work-orders"),
    [status],
  );
  const log = useLoad(() => get<LogEntry[]>("/work-order-log"), []);
  return (
    <>
      <div className="view-head">
        <h2>Work orders</h2>
      </div>
      <section aria-label="Queue">
        <h3>Queue</h3>
        <div className="toolbar">
          <label>
            Status
            <select value={status} onChange={(event) => setStatus(event.target.value)}>
              {STATUSES.map((value) => (
                <option key={value} value={value}>
                  {value || "any"}
                </option>
              ))}
            </select>
          </label>
          <button onClick={orders.reload} disabled={orders.loading}>
            Reload
          </button>
        </div>
        <LoadedOrRefused state={orders} what="work orders">
          {(list) =>
            list.length === 0 ? (
              <p className="notice">No work orders{status ? ` with status ${status}` : ""}.</p>
            ) : (
              <Paged items={list} label="work orders">
                {(rows) => (
                  <table>
                    <thead>
                      <tr>
                        <th>Created</th>
                        <th>Type</th>
                        <th>Status</th>
                        <th>Retries</th>
                        <th>Claimed by</th>
                        <th>Last error</th>
                      </tr>
                    </thead>
                    <tbody>
                      {rows.map((order) => (
                        <tr key={order.id}>
                          <td>{order.created_at}</td>
                          <td>{order.work_type}</td>
                          <td>{order.status}</td>
                          <td>
                            {order.retry_count} of {order.max_retries}
                          </td>
                          <td className="mono">{order.claimed_by ?? ""}</td>
                          <td>{order.last_error ?? ""}</td>
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
      <section aria-label="Log">
        <h3>Log</h3>
        <LoadedOrRefused state={log} what="the work order log">
          {(list) =>
            list.length === 0 ? (
              <p className="notice">No work order has completed yet.</p>
            ) : (
              <Paged items={list} label="entries">
                {(rows) => (
                  <table>
                    <thead>
                      <tr>
                        <th>Completed</th>
                        <th>Type</th>
                        <th>Result</th>
                        <th>Retries</th>
                        <th>Agent</th>
                        <th>Message</th>
                      </tr>
                    </thead>
                    <tbody>
                      {rows.map((entry) => (
                        <tr key={entry.id}>
                          <td>{entry.completed_at}</td>
                          <td>{entry.work_type}</td>
                          <td className={entry.success ? "ok" : "bad"}>{entry.success ? "succeeded" : "failed"}</td>
                          <td>{entry.retries_attempted}</td>
                          <td className="mono">{entry.claimed_by ?? ""}</td>
                          <td>{entry.result_message ?? ""}</td>
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
    </>
  );
}
