import { describe, expect, it } from "vitest";
import { firstDifference } from "./firstDifference";

describe("firstDifference", () => {
  it("says identical texts are identical", () => {
    expect(firstDifference("a: 1\nb: 2\n", "a: 1\nb: 2\n")).toEqual({ identical: true });
  });

  it("gives the line and column of the first differing character", () => {
    expect(firstDifference("a: 1\nb: 2\nc: 3\n", "a: 1\nb: 7\nc: 3\n")).toEqual({
      identical: false,
      offset: 8,
      line: 2,
      column: 4,
      storedLine: "b: 2",
      renderedLine: "b: 7",
    });
  });

  it("finds a difference at the very start", () => {
    const comparison = firstDifference("x\n", "y\n");
    expect(comparison).toMatchObject({ identical: false, line: 1, column: 1 });
  });

  it("reports a text that is a prefix of the other where it ends", () => {
    expect(firstDifference("a: 1\n", "a: 1\nb: 2\n")).toMatchObject({
      identical: false,
      offset: 5,
      line: 2,
      column: 1,
      storedLine: "",
      renderedLine: "b: 2",
    });
  });

  it("counts a newline the stored text starts with as its first line", () => {
    expect(firstDifference("\nx", "y")).toMatchObject({ identical: false, line: 1, column: 1, storedLine: "" });
  });

  it("tells a missing final newline apart", () => {
    expect(firstDifference("a: 1", "a: 1\n")).toMatchObject({ identical: false, line: 1, column: 5 });
  });

  it("counts the offset in UTF-8 bytes and the column in characters", () => {
    expect(firstDifference("é: 1\nb: 2\n", "é: 1\nb: 7\n")).toMatchObject({
      identical: false,
      offset: 9,
      line: 2,
      column: 4,
    });
  });

  it("places a difference inside a character at that character", () => {
    expect(firstDifference("x: é\n", "x: è\n")).toEqual({
      identical: false,
      offset: 4,
      line: 1,
      column: 4,
      storedLine: "x: é",
      renderedLine: "x: è",
    });
  });
});
