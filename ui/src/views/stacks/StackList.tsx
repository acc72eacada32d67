// The stacks this PAK may read (an admin: all; a generator: its own), with
// their labels and annotations, filtered by name and paged.
import { useState } from "react";
import { get } from "../../api";
import { Paged } from "../../components/Paged";
import { Loaded } from "../../components/Status";
import { href } from "../../router";
import { useSession } from "../../session";
import { useLoad } from "../../useLoad";
import { shortId } from "../../lib/format";
import { StackTags } from "./StackTags";
import type { Stack } from "../../types";
import "./stacks.css";

export function StackList(_props: { params: Record<string, string> }) {
  const { identity } = useSession();
  const stacks = useLoad(() => get<Stack[]>("/stacks"), []);
  const [filter, setFilter] = useState("");

  return (
    <>
      <div className="view-head">
        <h2>Stacks</h2>
        <span className="muted">{identity.admin ? "every generator's" : "your generator's"}</span>
      </div>
      <div className="toolbar">
        <label>
          Filter by name
          <input type="search" value={filter} onChange={(event) => setFilter(event.target.value)} />
        </label>
        <button onClick={stacks.reload} disabled={stacks.loading}>
          Reload
        </button>
      </div>
      <Loaded state={stacks} what="stacks">
        {(all) => {
          const needle = filter.trim().toLowerCase();
          const shown = needle ? all.filter((stack) => stack.name.toLowerCase().includes(needle)) : all;
          if (shown.length === 0) {
            return <p className="notice">{all.length === 0 ? "No stacks yet." : `No stack's name contains "${filter}".`}</p>;
          }
          return (
            <Paged items={shown} label="stacks">
              {(rows) => (
                <table>
                  <thead>
                    <tr>
                      <th>Name</th>
                      <th>Description</th>
                      <th>Generator</th>
                      <th>Labels and annotations</th>
                      <th>Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((stack) => (
                      <tr key={stack.id}>
                        <td>
                          <a href={href(`/stacks/${stack.id}`)}>{stack.name}</a>
                        </td>
                        <td>{stack.description ?? <span className="muted">—</span>}</td>
                        <td className="mono" title={stack.generator_id}>
                          {stack.generator_id === identity.generator ? "yours" : shortId(stack.generator_id)}
                        </td>
                        <td>
                          <StackTags stackId={stack.id} />
                        </td>
                        <td>{stack.created_at}</td>
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
