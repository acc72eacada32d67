// Where two texts first differ, byte for byte (UTF-16 code units, which
// agree with bytes on where the first difference is), told as a line and
// column and the two lines there.

export type Comparison =
  | { identical: true }
  | {
      identical: false;
      offset: number;
      line: number;
      column: number;
      storedLine: string;
      renderedLine: string;
    };

export function firstDifference(stored: string, rendered: string): Comparison {
  if (stored === rendered) return { identical: true };
  let offset = 0;
  while (offset < stored.length && offset < rendered.length && stored[offset] === rendered[offset]) offset++;
  const lineStart = offset === 0 ? 0 : stored.lastIndexOf("\n", offset - 1) + 1;
  const line = stored.slice(0, lineStart).split("\n").length;
  const lineAt = (text: string) => {
    const end = text.indexOf("\n", lineStart);
    return text.slice(lineStart, end === -1 ? text.length : end);
  };
  return {
    identical: false,
    offset,
    line,
    column: offset - lineStart + 1,
    storedLine: lineAt(stored),
    renderedLine: lineAt(rendered),
  };
}
