import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sortFew } from './sort-few.ts';

describe('sortFew', () => {
  it('orders as Array.prototype.sort does, ties kept in their order (both are stable)', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ score: fc.integer({ min: 0, max: 3 }), n: fc.integer({ min: 0, max: 2 }), id: fc.nat() }), { maxLength: 12 }), (xs) => {
        // Ties on (score, n) are common, so the order among equal elements is checked too.
        const cmp = (a: (typeof xs)[number], b: (typeof xs)[number]) => b.score - a.score || a.n - b.n;
        const copy = xs.slice();
        expect(sortFew(copy, cmp)).toBe(copy);
        expect(copy).toEqual(xs.slice().sort(cmp));
      }),
      { seed: 28, numRuns: 500 },
    );
  });
});
