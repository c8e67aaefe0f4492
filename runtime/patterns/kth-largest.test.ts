import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kthLargest } from './kth-largest.ts';

describe('kthLargest', () => {
  it('property: equals the k-th element of the values sorted descending (duplicates and infinities included)', () => {
    const value = fc.oneof(fc.double({ noNaN: true }), fc.constantFrom(0, -0, 1, -Infinity, Infinity));
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 200 }), fc.nat(), (xs, kSeed) => {
        const k = 1 + (kSeed % xs.length);
        const want = [...xs].sort((a, b) => b - a)[k - 1]!;
        expect(kthLargest(Float64Array.from(xs), xs.length, k) === want).toBe(true);
      }),
    );
  });
  it('refuses k outside 1..n', () => {
    expect(() => kthLargest([1, 2], 2, 0)).toThrow(RangeError);
    expect(() => kthLargest([1, 2], 2, 3)).toThrow(RangeError);
  });
});
