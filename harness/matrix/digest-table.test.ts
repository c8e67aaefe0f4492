import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DigestTable } from './digest-table.ts';

describe('DigestTable', () => {
  it('holds what a Map of the same digests holds, through any number of growths (colliding halves included)', () => {
    const half = fc.oneof(fc.constantFrom(0, 1, 0xffffffff), fc.integer({ min: 0, max: 0xffffffff }));
    const op = fc.tuple(half, fc.constantFrom(0, 7, 0xffffffff), fc.integer(), fc.integer());
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
