import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createOutputCollector, truncationMarker } from './output-cap.ts';

/** Splits `buf` at the given cut points (any byte offsets, so UTF-8 characters get split too). */
function chunked(buf: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (buf.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const p of [...points, buf.length]) {
    out.push(buf.subarray(prev, p));
    prev = p;
  }
  return out;
}

describe('createOutputCollector', () => {
  it('keeps output within the cap whole, and otherwise keeps head and tail around an exact marker', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.array(fc.nat(), { maxLength: 8 }), fc.integer({ min: 0, max: 200 }), (s, cuts, cap) => {
        const bytes = Buffer.from(s, 'utf8');
        const c = createOutputCollector(cap);
        for (const chunk of chunked(bytes, cuts)) c.push(chunk);
        const out = c.finish();
        if (bytes.length <= cap) {
          expect(out).toEqual({ text: s, truncated: false, omittedBytes: 0 });
          return;
        }
        expect(out.truncated).toBe(true);
        const marker = `\n${truncationMarker(out.omittedBytes)}\n`;
        const at = out.text.indexOf(marker);
        expect(at).toBeGreaterThanOrEqual(0);
        const head = out.text.slice(0, at);
        const tail = out.text.slice(at + marker.length);
        // Never a split character, never more than the cap, and the byte count adds up exactly.
        expect(s.startsWith(head)).toBe(true);
        expect(s.endsWith(tail)).toBe(true);
        const kept = Buffer.byteLength(head) + Buffer.byteLength(tail);
        expect(kept).toBeLessThanOrEqual(cap);
        expect(kept + out.omittedBytes).toBe(bytes.length);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps the end of a long output, where failures are reported', () => {
    const c = createOutputCollector(100);
    for (let i = 0; i < 1000; i++) c.push(Buffer.from(`line ${i}\n`));
    const out = c.finish();
    expect(out.text.startsWith('line 0\n')).toBe(true);
    expect(out.text.endsWith('line 999\n')).toBe(true);
    expect(out.text).toContain('…[truncated ');
  });
});
