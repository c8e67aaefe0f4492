import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DigestTable, textDigest } from './digest-table.ts';

describe('DigestTable', () => {
  it('holds what a Map of the same digests holds, through any number of growths (colliding halves included)', () => {
    const half = fc.oneof(fc.constantFrom(0, 1, 0xffffffff), fc.integer({ min: 0, max: 0xffffffff }));
    const op = fc.tuple(half, fc.constantFrom(0, 7, 0xffffffff), fc.maxSafeNat(), fc.integer({ min: 0, max: 0xffffffff }));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const t = new DigestTable(1);
        const m = new Map<string, [number, number]>();
        for (const [hi, lo, x, y] of ops) {
          t.set(hi, lo, [x, y]);
          m.set(`${hi}:${lo}`, [x, y]);
        }
        expect(t.size).toBe(m.size);
        for (const [k, v] of m) {
          const [hi, lo] = k.split(':').map(Number);
          expect(t.get(hi!, lo!)).toEqual(v);
        }
        expect(t.get(12345, 67890)).toEqual(m.get('12345:67890') ?? null);
      }),
    );
  });
});

describe('textDigest', () => {
  it('is the same for equal strings and differs in its first 64 bits for every pair of 200,000 near-identical ones', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        // A copy built anew, not the same string object.
        expect(textDigest(s)).toEqual(textDigest([...s].join('')));
      }),
    );
    // Strings differing in one character or by length, as imported ids and prompts do.
    const seen = new Set<string>();
    for (let i = 0; i < 100_000; i++) {
      for (const s of [`Question ${i}: the same words`, `task-${String(i).padStart(6, '0')}`]) {
        const [x, y] = textDigest(s);
        seen.add(`${x}:${y}`);
      }
    }
    expect(seen.size).toBe(200_000);
  });

  it('changes every word when one character changes', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.nat(), (s, at) => {
        const i = at % s.length;
        const t = `${s.slice(0, i)}${String.fromCharCode((s.charCodeAt(i) + 1) % 65536)}${s.slice(i + 1)}`;
        const [a, b] = [textDigest(s), textDigest(t)];
        // Any one word may match by chance (2^-32); all three at once would be a broken mix.
        expect(a[0] === b[0] && a[1] === b[1] && a[2] === b[2]).toBe(false);
      }),
    );
  });
});
