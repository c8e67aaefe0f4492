import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { l2Normalize } from './embedding-provider.ts';
import { createQuantizedRows } from './quantized-rows.ts';
import { dotsJs } from './simd-dots.ts';

const exact = (v: Float32Array, q: Float32Array) => {
  const out = new Float32Array(1);
  dotsJs(v, v.length, 1, q, out);
  return out[0]!;
};

// Components across scales, including zeros, subnormal float32 values and large magnitudes.
const component = fc.oneof(
  fc.float({ min: -1, max: 1, noNaN: true }),
  fc.constantFrom(0, -0, 1, -1, 1e-40, -1e-40, 1e-30),
  fc.float({ min: Math.fround(-1e15), max: Math.fround(1e15), noNaN: true }),
);

describe('quantized rows', () => {
  it.each([true, false])('property (SIMD %s): every exact float32 score lies inside its interval, across growth and swap-remove moves', (simd) => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 70 }).chain((dim) =>
          fc.tuple(
            fc.array(fc.array(component, { minLength: dim, maxLength: dim }), { minLength: 1, maxLength: 40 }),
            fc.array(component, { minLength: dim, maxLength: dim }),
          ),
        ),
        ([rawRows, rawQ]) => {
          const rows = rawRows.map((r) => Float32Array.from(r));
          // A duplicate and the query itself stored, the cases where scores tie or reach the top.
          const q = Float32Array.from(rawQ);
          rows.push(rows[0]!, q);
          const dim = q.length;
          const m = createQuantizedRows(dim, 2, { simd });
          rows.forEach((r, s) => m.set(s, r));
          m.move(rows.length - 1, 0);
          const live = [rows[rows.length - 1]!, ...rows.slice(1, -1)];
          const { lower, upper } = m.bounds(q, live.length);
          live.forEach((v, r) => {
            const s = exact(v, q);
            expect(lower[r]! <= s && s <= upper[r]!, `row ${r}: ${lower[r]} <= ${s} <= ${upper[r]}`).toBe(true);
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps intervals narrow enough to prune: under 0.01 on unit vectors at 384 and 512 dims', () => {
    let seed = 9;
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32) * 2 - 1;
    for (const dim of [384, 512]) {
      const m = createQuantizedRows(dim);
      const vs = Array.from({ length: 50 }, () => l2Normalize(Float32Array.from({ length: dim }, rand)));
      vs.forEach((v, s) => m.set(s, v));
      const q = l2Normalize(Float32Array.from({ length: dim }, rand));
      const { lower, upper } = m.bounds(q, vs.length);
      vs.forEach((v, r) => {
        expect(upper[r]! - lower[r]!).toBeLessThan(0.02);
        expect(lower[r]!).toBeLessThanOrEqual(exact(v, q));
        expect(upper[r]!).toBeGreaterThanOrEqual(exact(v, q));
      });
    }
  });

  it('gives up pruning (infinite interval) where a score could overflow float32', () => {
    const m = createQuantizedRows(2);
    m.set(0, Float32Array.of(3e38, 0));
    const { lower, upper } = m.bounds(Float32Array.of(3e38, 0), 1);
    expect([lower[0], upper[0]]).toEqual([-Infinity, Infinity]);
  });

  it.each([true, false])('property (SIMD %s): candidates hold the exact top k and match the bounds, across memories', (simd) => {
    fc.assert(
      fc.property(
        fc.record({
          dim: fc.integer({ min: 1, max: 70 }),
          rows: fc.integer({ min: 1, max: 120 }),
          k: fc.integer({ min: 1, max: 15 }),
          // Rows per memory: small, so rows spill over several memories.
          chunkRows: fc.integer({ min: 1, max: 40 }),
          seed: fc.integer({ min: 0, max: 2 ** 31 }),
          dup: fc.boolean(),
        }),
        ({ dim, rows, k, chunkRows, seed, dup }) => {
          let s = seed;
          const rand = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32) * 2 - 1;
          const vs = Array.from({ length: rows }, () => Float32Array.from({ length: dim }, rand));
          if (dup) for (let r = 1; r < rows; r += 2) vs[r] = vs[r - 1]!;
          const q = Float32Array.from({ length: dim }, rand);
          const m = createQuantizedRows(dim, 1, { simd, chunkBytes: chunkRows * Math.ceil(dim / 32) * 32 });
          vs.forEach((v, r) => m.set(r, v));
          const got = Array.from(m.candidates(q, rows, k));
          // The top k by exact score, every row tied with the k-th included.
          const scores = vs.map((v) => exact(v, q));
          const kth = [...scores].sort((a, b) => b - a)[Math.min(k, rows) - 1]!;
          for (let r = 0; r < rows; r++) if (scores[r]! >= kth) expect(got, `row ${r} (score ${scores[r]}) is in the top ${k}`).toContain(r);
          if (k < rows) {
            const { lower, upper } = m.bounds(q, rows);
            const lowKth = [...lower].sort((a, b) => b - a)[k - 1]!;
            expect(got).toEqual(Array.from({ length: rows }, (_, r) => r).filter((r) => upper[r]! >= lowKth));
          } else expect(got).toEqual(Array.from({ length: rows }, (_, r) => r));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('scans a first block of k rows that ends inside a tile (k not a multiple of four) and still keeps the exact top k', () => {
    let seed = 3;
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32) * 2 - 1;
    const dim = 40;
    const vs = Array.from({ length: 900 }, () => Float32Array.from({ length: dim }, rand));
    const q = Float32Array.from({ length: dim }, rand);
    for (const simd of [true, false]) {
      // Rows per memory not a multiple of four either, so a memory ends inside a tile too.
      const m = createQuantizedRows(dim, 1, { simd, chunkBytes: 301 * 64 });
      vs.forEach((v, r) => m.set(r, v));
      const scores = vs.map((v) => exact(v, q));
      for (const k of [257, 301, 450]) {
        const got = Array.from(m.candidates(q, vs.length, k));
        const kth = [...scores].sort((a, b) => b - a)[k - 1]!;
        expect(scores.every((s, r) => s < kth || got.includes(r))).toBe(true);
        const { lower, upper } = m.bounds(q, vs.length);
        const lowKth = [...lower].sort((a, b) => b - a)[k - 1]!;
        expect(got).toEqual(vs.map((_, r) => r).filter((r) => upper[r]! >= lowKth));
      }
    }
  });

  it('grows by what is needed, not by doubling, and keeps rows across memories through moves', () => {
    const m = createQuantizedRows(32, 1, { chunkBytes: 32 * 10 });
    m.reserve(1_000);
    m.reserve(1_001);
    expect(m.capacity).toBeLessThanOrEqual(Math.ceil(1_000 * 1.125));
    const v = Float32Array.from({ length: 32 }, (_, i) => (i % 3) - 1);
    m.set(995, v);
    m.move(995, 3);
    const { lower, upper } = m.bounds(v, 4);
    expect(lower[3]!).toBeLessThanOrEqual(exact(v, v));
    expect(upper[3]!).toBeGreaterThanOrEqual(exact(v, v));
    expect(upper[3]! - lower[3]!).toBeLessThan(0.01 * exact(v, v));
  });
});
