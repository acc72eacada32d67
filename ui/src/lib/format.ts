// Small formatting shared by the stack and fleet views.

// "12 s ago", "3 min ago", "5 h ago", "2 d ago".
export function ago(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return "never";
  const whole = Math.max(0, Math.floor(seconds));
  if (whole < 120) return `${whole} s ago`;
  if (whole < 2 * 3600) return `${Math.floor(whole / 60)} min ago`;
  if (whole < 2 * 86400) return `${Math.floor(whole / 3600)} h ago`;
  return `${Math.floor(whole / 86400)} d ago`;
}

// Seconds from an RFC 3339 timestamp to `now` (ms), or null without one.
export function secondsSince(timestamp: string | null | undefined, now: number): number | null {
  if (!timestamp) return null;
  const then = Date.parse(timestamp);
  return Number.isNaN(then) ? null : (now - then) / 1000;
}

export function shortId(id: string): string {
  return id.slice(0, 8);
}

// The first characters of a checksum, enough to tell objects apart.
export function shortChecksum(checksum: string): string {
  return checksum.slice(0, 12);
}
