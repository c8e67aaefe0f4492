import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wilson, wilsonUpper, Z95 } from './wilson.ts';

describe('wilson', () => {
  it('matches a textbook value (8 of 10 at 95%: [0.490, 0.943])', () => {
    const w = wilson(8, 10, Z95);
    expect(w.lo).toBeCloseTo(0.4902, 3);
    expect(w.hi).toBeCloseTo(0.9433, 3);
  });
  it('gives [0, 1] with no trials and a positive upper bound with zero errors', () => {
    expect(wilson(0, 0)).toEqual({ p: null, lo: 0, hi: 1 });
    expect(wilsonUpper(0, 268)).toBeLessThan(0.01);
    expect(wilsonUpper(0, 200)).toBeGreaterThan(0.01);
  });
  it('always brackets the point estimate inside [0, 1]', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, f) => {
        const k = Math.floor(f * n);
        const w = wilson(k, n);
        expect(w.lo).toBeGreaterThanOrEqual(0);
        expect(w.hi).toBeLessThanOrEqual(1);
        expect(w.lo).toBeLessThanOrEqual(k / n + 1e-12);
        expect(w.hi).toBeGreaterThanOrEqual(k / n - 1e-12);
      }),
    );
  });
  it('narrows as n grows at a fixed proportion', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), (n) => {
        const a = wilson(n, 2 * n);
        const b = wilson(2 * n, 4 * n);
        expect(b.hi - b.lo).toBeLessThan(a.hi - a.lo);
      }),
    );
  });
  it('refuses impossible counts', () => {
    expect(() => wilson(3, 2)).toThrow(RangeError);
    expect(() => wilson(-1, 2)).toThrow(RangeError);
    expect(() => wilson(0.5, 2)).toThrow(RangeError);
  });
});
