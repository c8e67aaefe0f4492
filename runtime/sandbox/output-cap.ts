/** Default cap on a command's captured output (stdout and stderr together). */
export const DEFAULT_MAX_OUTPUT_BYTES = 16 * 1024;

/** The marker put where output was cut; `omitted` is exact, in bytes of the original output. */
export function truncationMarker(omitted: number): string {
  return `…[truncated ${omitted} bytes]`;
}

/** Collected output: text within the cap, whether anything was cut, and how many bytes. */
export interface CappedOutput {
  text: string;
  truncated: boolean;
  omittedBytes: number;
}

/** Accumulates a byte stream in bounded memory. */
export interface OutputCollector {
  push(chunk: Buffer): void;
  finish(): CappedOutput;
}

/** Length of the longest prefix of `buf` that ends on a UTF-8 character boundary. */
export function completePrefixLength(buf: Buffer): number {
  let i = buf.length - 1;
  while (i >= 0 && buf.length - i <= 4 && (buf[i]! & 0xc0) === 0x80) i--;
  if (i < 0) return 0;
  const lead = buf[i]!;
  const need = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return i + need <= buf.length ? buf.length : i;
}

/** Index of the first character boundary at or after byte `i`. */
function nextCharStart(buf: Buffer, i: number): number {
  let j = i;
  while (j < buf.length && (buf[j]! & 0xc0) === 0x80) j++;
  return j;
}

/**
 * Keeps at most `maxBytes` of a stream: all of it when it fits, otherwise the first and last
 * halves with a marker between them, because a command's failure is usually reported at the end.
 */
export function createOutputCollector(maxBytes: number = DEFAULT_MAX_OUTPUT_BYTES): OutputCollector {
  const cap = Math.max(0, Math.floor(maxBytes));
  const headCap = Math.ceil(cap / 2);
  const tailCap = cap - headCap;
  let total = 0;
  let whole: Buffer[] = [];
  let wholeLen = 0;
  let head: Buffer | null = null;
  let tail = Buffer.alloc(0);

  return {
    push(chunk) {
      total += chunk.length;
      if (head === null) {
        if (wholeLen + chunk.length <= cap) {
          whole.push(chunk);
          wholeLen += chunk.length;
          return;
        }
        const all = Buffer.concat([...whole, chunk]);
        whole = [];
        head = all.subarray(0, headCap);
        tail = Buffer.from(all.subarray(Math.max(headCap, all.length - tailCap)));
        return;
      }
      const joined = Buffer.concat([tail, chunk]);
      tail = Buffer.from(joined.subarray(Math.max(0, joined.length - tailCap)));
    },
    finish() {
      if (head === null) return { text: Buffer.concat(whole).toString('utf8'), truncated: false, omittedBytes: 0 };
      // A character cut at the head's end is dropped whole; the tail starts on a boundary.
      const h = head.subarray(0, completePrefixLength(head));
      const t = tail.subarray(nextCharStart(tail, 0));
      const omitted = total - h.length - t.length;
      const text = `${h.toString('utf8')}\n${truncationMarker(omitted)}\n${t.toString('utf8')}`;
      return { text, truncated: true, omittedBytes: omitted };
    },
  };
}
