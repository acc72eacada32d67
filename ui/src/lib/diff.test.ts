import { describe, expect, it } from "vitest";
import { diffLines, diffSummary, splitLines, type DiffRow } from "./diff";

// One letter per row kind, then the two sides: "=a|a", "+|b", "-a|", "~a|b".
function picture(rows: DiffRow[]): string[] {
  return rows.map((row) => {
    switch (row.kind) {
      case "same":
        return `=${row.left.text}|${row.right.text}`;
      case "changed":
        return `~${row.left.text}|${row.right.text}`;
      case "removed":
        return `-${row.left.text}|`;
      case "added":
        return `+|${row.right.text}`;
    }
  });
}

describe("splitLines", () => {
  it("numbers lines from 1 and drops the empty piece after a final newline", () => {
    expect(splitLines("a\nb\n")).toEqual([
      { number: 1, text: "a" },
      { number: 2, text: "b" },
    ]);
  });

  it("marks a last line without a newline", () => {
    expect(splitLines("a\nb")).toEqual([
      { number: 1, text: "a" },
      { number: 2, text: "b", noFinalNewline: true },
    ]);
  });

  it("gives no lines for an empty text and one empty line for a lone newline", () => {
    expect(splitLines("")).toEqual([]);
    expect(splitLines("\n")).toEqual([{ number: 1, text: "" }]);
  });
});

describe("diffLines", () => {
  it("shows equal texts as unchanged rows only", () => {
    const result = diffLines("a\nb\nc\n", "a\nb\nc\n");
    expect(picture(result.rows)).toEqual(["=a|a", "=b|b", "=c|c"]);
    expect(diffSummary(result.rows)).toEqual({ added: 0, removed: 0, changed: 0 });
  });

  it("shows pure insertions as added rows where they happen", () => {
    const result = diffLines("a\nd\n", "a\nb\nc\nd\n");
    expect(picture(result.rows)).toEqual(["=a|a", "+|b", "+|c", "=d|d"]);
    const added = result.rows.filter((row) => row.kind === "added");
    expect(added.map((row) => row.kind === "added" && row.right.number)).toEqual([2, 3]);
  });

  it("shows pure deletions as removed rows", () => {
    const result = diffLines("a\nb\nc\nd\n", "a\nd\n");
    expect(picture(result.rows)).toEqual(["=a|a", "-b|", "-c|", "=d|d"]);
    expect(diffSummary(result.rows)).toEqual({ added: 0, removed: 2, changed: 0 });
  });

  it("pairs a replaced line as changed, keeping both line numbers", () => {
    const result = diffLines("name: a\nreplicas: 1\nport: 80\n", "name: a\nreplicas: 3\nport: 80\n");
    expect(picture(result.rows)).toEqual(["=name: a|name: a", "~replicas: 1|replicas: 3", "=port: 80|port: 80"]);
    const changed = result.rows[1];
    expect(changed.kind === "changed" && [changed.left.number, changed.right.number]).toEqual([2, 2]);
  });

  it("pairs what it can of an uneven replacement and leaves the rest added", () => {
    const result = diffLines("a\nx\nz\n", "a\np\nq\nr\nz\n");
    expect(picture(result.rows)).toEqual(["=a|a", "~x|p", "+|q", "+|r", "=z|z"]);
  });

  it("handles an empty side", () => {
    expect(picture(diffLines("", "a\nb\n").rows)).toEqual(["+|a", "+|b"]);
    expect(picture(diffLines("a\nb\n", "").rows)).toEqual(["-a|", "-b|"]);
    expect(diffLines("", "").rows).toEqual([]);
  });

  it("sees a missing final newline as a change of the last line", () => {
    const result = diffLines("a\nb\n", "a\nb");
    expect(picture(result.rows)).toEqual(["=a|a", "~b|b"]);
    const last = result.rows[1];
    expect(last.kind === "changed" && [last.left.noFinalNewline, last.right.noFinalNewline]).toEqual([
      undefined,
      true,
    ]);
  });

  it("finds a shortest script through interleaved changes", () => {
    const result = diffLines("a\nb\nc\na\nb\nb\na\n", "c\nb\na\nb\na\nc\n");
    const summary = diffSummary(result.rows);
    const same = result.rows.filter((row) => row.kind === "same").length;
    // Myers' example: 5 edits, 4 lines kept.
    expect(same).toBe(4);
    expect(summary.added + summary.removed + 2 * summary.changed).toBe(5);
  });

  it("keeps every line of both sides in order", () => {
    const before = "1\n2\n3\n4\n5\n6\n7\n8\n";
    const after = "0\n2\n3\nx\n5\n7\n8\n9\n";
    const rows = diffLines(before, after).rows;
    const leftNumbers = rows.flatMap((row) => (row.kind === "added" ? [] : [row.left.number]));
    const rightNumbers = rows.flatMap((row) => (row.kind === "removed" ? [] : [row.right.number]));
    expect(leftNumbers).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(rightNumbers).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it("stays linear in the size for a large text with a few edits", () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i}`);
    const edited = [...lines];
    for (const at of [100, 5_000, 12_345, 19_999]) edited[at] = `edited ${at}`;
    edited.splice(7_000, 0, "inserted");
    const result = diffLines(lines.join("\n") + "\n", edited.join("\n") + "\n");
    expect(result.truncated).toBe(false);
    expect(diffSummary(result.rows)).toEqual({ added: 1, removed: 0, changed: 4 });
    // About (N + M) * D with D = 9 edits, far from the N * M = 4e8 of a table.
    expect(result.operations).toBeLessThan(20 * 40_000);
  });

  it("bounds the work on two large unrelated texts and still shows every line", () => {
    const before = Array.from({ length: 10_000 }, (_, i) => `left ${i}`).join("\n");
    const after = Array.from({ length: 10_000 }, (_, i) => `right ${i}`).join("\n");
    const result = diffLines(before, after, 500);
    expect(result.truncated).toBe(true);
    expect(result.operations).toBeLessThan(600 * 600);
    expect(diffSummary(result.rows)).toEqual({ added: 0, removed: 0, changed: 10_000 });
  });
});
