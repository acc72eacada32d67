// A line diff for showing two texts side by side: Myers' O((N+M)D) shortest
// edit script over the lines between a common prefix and suffix, then runs of
// removals and additions paired into "changed" rows. Past `maxEdits` edits
// the middle is shown as replaced wholesale, so a huge unrelated pair stays
// bounded in time and memory instead of growing with the square of its size.

export interface DiffLine {
  // 1-based line number in its own text.
  number: number;
  text: string;
  // The text's last line, with no newline after it.
  noFinalNewline?: boolean;
}

export type DiffRow =
  | { kind: "same"; left: DiffLine; right: DiffLine }
  | { kind: "changed"; left: DiffLine; right: DiffLine }
  | { kind: "removed"; left: DiffLine }
  | { kind: "added"; right: DiffLine };

export interface LineDiff {
  rows: DiffRow[];
  // Lines compared while searching for the shortest edit script: a measure
  // of the work done, independent of the machine.
  operations: number;
  // True when the edit budget ran out and the middle is shown as replaced.
  truncated: boolean;
}

const DEFAULT_MAX_EDITS = 2000;

export function splitLines(text: string): DiffLine[] {
  if (text === "") return [];
  const parts = text.split("\n");
  const finalNewline = parts[parts.length - 1] === "";
  if (finalNewline) parts.pop();
  return parts.map((line, index) => {
    const entry: DiffLine = { number: index + 1, text: line };
    if (!finalNewline && index === parts.length - 1) entry.noFinalNewline = true;
    return entry;
  });
}

// Two lines are equal when their text and their newline are.
function lineKey(line: DiffLine): string {
  return line.noFinalNewline ? `${line.text}\u0000` : line.text;
}

type Edit = "same" | "remove" | "add";

// Myers' greedy forward search, keeping each round's frontier (2d+1 entries)
// for the walk back. `a` and `b` are interned lines.
function shortestEditScript(
  a: Int32Array,
  b: Int32Array,
  maxEdits: number,
  counter: { operations: number },
): Edit[] | null {
  const n = a.length;
  const m = b.length;
  const limit = Math.min(n + m, maxEdits);
  const offset = limit + 1;
  const frontier = new Int32Array(2 * limit + 3);
  const rounds: Int32Array[] = [];
  for (let d = 0; d <= limit; d++) {
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && frontier[offset + k - 1] < frontier[offset + k + 1])
          ? frontier[offset + k + 1]
          : frontier[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
        counter.operations++;
      }
      counter.operations++;
      frontier[offset + k] = x;
      if (x >= n && y >= m) {
        rounds.push(frontier.slice(offset - d, offset + d + 1));
        return walkBack(rounds, n, m);
      }
    }
    rounds.push(frontier.slice(offset - d, offset + d + 1));
  }
  return null;
}

function walkBack(rounds: Int32Array[], n: number, m: number): Edit[] {
  const edits: Edit[] = [];
  let x = n;
  let y = m;
  for (let d = rounds.length - 1; d > 0; d--) {
    const previous = rounds[d - 1];
    const at = (k: number) => previous[k + (d - 1)];
    const k = x - y;
    const fromAbove = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const previousK = fromAbove ? k + 1 : k - 1;
    const previousX = at(previousK);
    const previousY = previousX - previousK;
    while (x > previousX && y > previousY) {
      edits.push("same");
      x--;
      y--;
    }
    edits.push(fromAbove ? "add" : "remove");
    if (fromAbove) y--;
    else x--;
  }
  while (x > 0 && y > 0) {
    edits.push("same");
    x--;
    y--;
  }
  return edits.reverse();
}

export function diffLines(before: string, after: string, maxEdits = DEFAULT_MAX_EDITS): LineDiff {
  const left = splitLines(before);
  const right = splitLines(after);
  const counter = { operations: 0 };

  let prefix = 0;
  while (prefix < left.length && prefix < right.length && lineKey(left[prefix]) === lineKey(right[prefix])) {
    prefix++;
    counter.operations++;
  }
  let suffix = 0;
  while (
    suffix < left.length - prefix &&
    suffix < right.length - prefix &&
    lineKey(left[left.length - 1 - suffix]) === lineKey(right[right.length - 1 - suffix])
  ) {
    suffix++;
    counter.operations++;
  }

  const leftMiddle = left.slice(prefix, left.length - suffix);
  const rightMiddle = right.slice(prefix, right.length - suffix);
  const ids = new Map<string, number>();
  const intern = (lines: DiffLine[]) =>
    Int32Array.from(lines, (line) => {
      const key = lineKey(line);
      let id = ids.get(key);
      if (id === undefined) {
        id = ids.size;
        ids.set(key, id);
      }
      return id;
    });
  const script = shortestEditScript(intern(leftMiddle), intern(rightMiddle), maxEdits, counter);
  const truncated = script === null;
  const middle: Edit[] = script ?? [
    ...leftMiddle.map((): Edit => "remove"),
    ...rightMiddle.map((): Edit => "add"),
  ];
  const edits: Edit[] = [
    ...Array.from({ length: prefix }, (): Edit => "same"),
    ...middle,
    ...Array.from({ length: suffix }, (): Edit => "same"),
  ];
  return { rows: toRows(edits, left, right), operations: counter.operations, truncated };
}

// A run of removals next to a run of additions pairs up line by line as
// changed rows; what is left over stays removed or added.
function toRows(edits: Edit[], left: DiffLine[], right: DiffLine[]): DiffRow[] {
  const rows: DiffRow[] = [];
  let x = 0;
  let y = 0;
  let index = 0;
  while (index < edits.length) {
    if (edits[index] === "same") {
      rows.push({ kind: "same", left: left[x++], right: right[y++] });
      index++;
      continue;
    }
    const removed: DiffLine[] = [];
    const added: DiffLine[] = [];
    while (index < edits.length && edits[index] !== "same") {
      if (edits[index] === "remove") removed.push(left[x++]);
      else added.push(right[y++]);
      index++;
    }
    const paired = Math.min(removed.length, added.length);
    for (let i = 0; i < paired; i++) rows.push({ kind: "changed", left: removed[i], right: added[i] });
    for (let i = paired; i < removed.length; i++) rows.push({ kind: "removed", left: removed[i] });
    for (let i = paired; i < added.length; i++) rows.push({ kind: "added", right: added[i] });
  }
  return rows;
}

export function diffSummary(rows: DiffRow[]): { added: number; removed: number; changed: number } {
  const summary = { added: 0, removed: 0, changed: 0 };
  for (const row of rows) {
    if (row.kind === "added") summary.added++;
    else if (row.kind === "removed") summary.removed++;
    else if (row.kind === "changed") summary.changed++;
  }
  return summary;
}
