// Where two texts first differ, byte for byte in UTF-8 (as the broker
// compares them): the byte offset, the line and column (in characters)
// there, and the two lines.

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

const NEWLINE = 0x0a;

// A byte 10xxxxxx continues a UTF-8 character begun before it.
const continues = (byte: number) => (byte & 0xc0) === 0x80;

export function firstDifference(stored: string, rendered: string): Comparison {
  const encoder = new TextEncoder();
  const a = encoder.encode(stored);
  const b = encoder.encode(rendered);
  let offset = 0;
  while (offset < a.length && offset < b.length && a[offset] === b[offset]) offset++;
  if (offset === a.length && offset === b.length) return { identical: true };

  const lineStart = offset === 0 ? 0 : a.lastIndexOf(NEWLINE, offset - 1) + 1;
  let line = 1;
  for (let index = 0; index < lineStart; index++) if (a[index] === NEWLINE) line++;
  let characterStart = offset;
  while (characterStart > lineStart && characterStart < a.length && continues(a[characterStart])) characterStart--;

  const decoder = new TextDecoder();
  const lineAt = (bytes: Uint8Array) => {
    const end = bytes.indexOf(NEWLINE, lineStart);
    return decoder.decode(bytes.subarray(lineStart, end === -1 ? bytes.length : end));
  };
  return {
    identical: false,
    offset,
    line,
    column: Array.from(decoder.decode(a.subarray(lineStart, characterStart))).length + 1,
    storedLine: lineAt(a),
    renderedLine: lineAt(b),
  };
}
