import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aboveThreshold, batchSimilarity, cosineSimilarity } from './similarity-calculator.ts';

const vec = (n: number) => fc.array(fc.double({ min: -100, max: 100, noNaN: true }), { minLength: n, maxLength: n });

describe('SimilarityCalculator (§3)', () => {
  it('identical vectors score 1, whatever their length', () => {
    expect(cosineSimilarity([0.3, -1.2, 4], [0.3, -1.2, 4])).toBeCloseTo(1, 12);
    expect(cosineSimilarity([1, 2, 3], [2, 4, 6])).toBeCloseTo(1, 12);
  });

  it('orthogonal vectors score 0', () => {
    expect(cosineSimilarity([1, 0, 0], [0, 5, 0])).toBe(0);
    expect(cosineSimilarity([1, 1], [1, -1])).toBe(0);
  });

  it('opposite vectors score -1', () => {
    expect(cosineSimilarity([1, -2, 3], [-1, 2, -3])).toBeCloseTo(-1, 12);
  });

  it('accepts Float32Array and plain arrays alike', () => {
    expect(cosineSimilarity(Float32Array.from([3, 4]), [4, 3])).toBeCloseTo(24 / 25, 6);
  });

  it('refuses mismatched dimensions with a RangeError naming both lengths', () => {
    expect(() => cosineSimilarity([1, 2, 3], [1, 2])).toThrow(RangeError);
    expect(() => cosineSimilarity([1, 2, 3], [1, 2])).toThrow(/3 vs 2/);
  });

  it('a zero vector is like nothing: 0, never NaN', () => {
    expect(cosineSimilarity([0, 0, 0], [1, 2, 3])).toBe(0);
    expect(cosineSimilarity([0, 0], [0, 0])).toBe(0);
  });

  it('batch gives each candidate its pairwise cosine, in order, and an empty batch is empty', () => {
    const q = [1, 2, 0];
    const cands = [[1, 2, 0], [0, 0, 1], [-1, -2, 0], [2, 1, 0]];
    expect(batchSimilarity(q, cands)).toEqual(cands.map((c) => cosineSimilarity(q, c)));
    expect(batchSimilarity(q, cands).slice(0, 3).map((s) => Math.round(s * 1e9) / 1e9)).toEqual([1, 0, -1]);
    expect(batchSimilarity(q, [])).toEqual([]);
  });

  it('a batch with one mismatched candidate fails as a whole', () => {
    expect(() => batchSimilarity([1, 0], [[1, 0], [1, 0, 0]])).toThrow(/2 vs 3/);
  });

  it.each([
    [0.9, 0.9, true],
    [0.91, 0.9, true],
    [0.8999, 0.9, false],
    [Number.NaN, 0.9, false],
  ])('aboveThreshold(%s, %s) is %s (the threshold itself passes)', (s, t, want) => {
    expect(aboveThreshold(s, t)).toBe(want);
  });

  // Any doubles, subnormals included: this found tiny vectors scoring NaN (the norms' product underflowed).
  it('property: in [-1, 1] and symmetric', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 16 }).chain((n) => fc.tuple(vec(n), vec(n))), ([a, b]) => {
        const s = cosineSimilarity(a, b);
        expect(s).toBeGreaterThanOrEqual(-1);
        expect(s).toBeLessThanOrEqual(1);
        expect(cosineSimilarity(b, a)).toBe(s);
      }),
    );
  });

  it('property: unchanged by scaling either vector by a positive factor', () => {
    const tenths = (n: number) => fc.array(fc.integer({ min: -1000, max: 1000 }).map((x) => x / 10), { minLength: n, maxLength: n });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 16 }).chain((n) => fc.tuple(tenths(n), tenths(n), fc.double({ min: 0.01, max: 100, noNaN: true }))), ([a, b, k]) => {
        expect(cosineSimilarity(a.map((x) => x * k), b)).toBeCloseTo(cosineSimilarity(a, b), 9);
      }),
    );
  });

  it('property: batch equals pairwise', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }).chain((n) => fc.tuple(vec(n), fc.array(vec(n), { maxLength: 10 }))), ([q, cands]) => {
        expect(batchSimilarity(q, cands)).toEqual(cands.map((c) => cosineSimilarity(q, c)));
      }),
    );
  });
});
