import { describe, expect, it } from "vitest";
import { ago, secondsSince } from "./format";

describe("ago", () => {
  it("says how long ago in the largest unit that reads well", () => {
    expect(ago(12.7)).toBe("12 s ago");
    expect(ago(119)).toBe("119 s ago");
    expect(ago(180)).toBe("3 min ago");
    expect(ago(5 * 3600)).toBe("5 h ago");
    expect(ago(3 * 86400)).toBe("3 d ago");
  });

  it("says never without a time, and clamps a clock ahead of ours to zero", () => {
    expect(ago(null)).toBe("never");
    expect(ago(undefined)).toBe("never");
    expect(ago(-3)).toBe("0 s ago");
  });
});

describe("secondsSince", () => {
  it("measures from a timestamp to now", () => {
    expect(secondsSince("2025-01-01T00:00:00Z", Date.parse("2025-01-01T00:00:30Z"))).toBe(30);
    expect(secondsSince(null, 0)).toBeNull();
    expect(secondsSince("not a time", 0)).toBeNull();
  });
});
