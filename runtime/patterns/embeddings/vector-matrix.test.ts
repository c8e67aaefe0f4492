import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createVectorMatrix } from './vector-matrix.ts';

describe('vector matrix top-K', () => {
  it('property: equals a full sort by dot product (ties by id)', () => {
    const vec = fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 3, maxLength: 3 }).map((x) => Float32Array.from(x));
    fc.assert(
      fc.property(fc.array(vec, { maxLength: 30 }), vec, fc.integer({ min: 1, max: 8 }), (rows, q, k) => {
        const m = createVectorMatrix(3);
        rows.forEach((r, i) => m.put(`id${String(i).padStart(3, '0')}`, r));
        const scores = m.scores(q);
        const expected = [...scores.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, k).map(([id, score]) => ({ id, score }));
        expect(m.topK(q, k)).toEqual(expected);
      }),
    );
  });
});
