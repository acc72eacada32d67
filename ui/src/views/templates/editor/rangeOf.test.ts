import { Text } from "@codemirror/state";
import { describe, expect, it } from "vitest";
import { diagnostics, rangeOf } from "./CodeEditor";

const doc = Text.of(["a: 1", "b: {{ x + }}", ""]);

describe("rangeOf", () => {
  it("spans from the column to the end of the word there", () => {
    // Line 2 starts at offset 5; column 11 is the `}}`.
    expect(rangeOf(doc, { line: 2, column: 11 })).toEqual({ from: 15, to: 17 });
  });

  it("keeps one character on a space so the marker shows", () => {
    expect(rangeOf(doc, { line: 2, column: 3 })).toEqual({ from: 7, to: 8 });
  });

  it("clamps a line or column past the text", () => {
    expect(rangeOf(doc, { line: 9, column: 4 })).toEqual({ from: 18, to: 18 });
    expect(rangeOf(doc, { line: 1, column: 40 })).toEqual({ from: 4, to: 4 });
  });

  it("puts a problem without a place at the start", () => {
    expect(rangeOf(doc, undefined)).toEqual({ from: 0, to: 0 });
  });
});

describe("diagnostics", () => {
  it("marks a placed problem and leaves one without a place to the list", () => {
    const marked = diagnostics(doc, [
      { field: "template_content", code: "empty", message: "the template is empty" },
      { field: "template_content", code: "invalid_template_syntax", message: "x", place: { line: 2, column: 11 } },
    ]);
    expect(marked).toEqual([{ from: 15, to: 17, severity: "error", source: "invalid_template_syntax", message: "x" }]);
  });
});
