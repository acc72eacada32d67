import { describe, expect, it } from "vitest";
import { auditQuery, localToRfc3339, readAuditQuery, rfc3339ToLocal } from "./auditQuery";

describe("audit log query", () => {
  it("reads the filters and offset from the hash path, ignoring unknown and empty ones", () => {
    expect(readAuditQuery("/audit?action=stack.created&actor_type=admin&offset=100&colour=red&resource_type=")).toEqual({
      filters: { action: "stack.created", actor_type: "admin" },
      offset: 100,
    });
    expect(readAuditQuery("/audit")).toEqual({ filters: {}, offset: 0 });
    expect(readAuditQuery("/audit?offset=-5").offset).toBe(0);
    expect(readAuditQuery("/audit?offset=abc").offset).toBe(0);
  });

  it("writes the broker's parameters, leaving out empty filters and a zero offset", () => {
    expect(auditQuery({ action: "agent.created", actor_id: " " }, 0).toString()).toBe("action=agent.created&limit=50");
    expect(auditQuery({ resource_type: "stack" }, 50, 10).toString()).toBe("resource_type=stack&offset=50&limit=10");
  });

  it("round-trips a filtered page through the hash", () => {
    const query = auditQuery({ actor_type: "generator", from: "2025-01-01T00:00:00.000Z" }, 150);
    expect(readAuditQuery(`/audit?${query}`)).toEqual({
      filters: { actor_type: "generator", from: "2025-01-01T00:00:00.000Z" },
      offset: 150,
    });
  });

  it("turns a local time into RFC 3339 and back", () => {
    const rfc = localToRfc3339("2025-03-04T05:06");
    expect(rfc).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00\.000Z$/);
    expect(rfc3339ToLocal(rfc)).toBe("2025-03-04T05:06");
    expect(localToRfc3339("")).toBe("");
    expect(rfc3339ToLocal("nonsense")).toBe("");
  });
});
