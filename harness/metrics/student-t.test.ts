import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bisectQuantile } from './student-t.ts';
import { plainBisection } from './test-support/plain-bisection.ts';

describe('bisectQuantile', () => {
  it('is the plain bisection to the last bit, at any level above 0.5 and any df, near 0.5 and 1 included (property)', () => {
    const level = fc.oneof(fc.constantFrom(0.9, 0.95, 0.975, 0.99, 0.995, 0.9999, 0.5000001), fc.double({ min: 0.5, max: 1, noNaN: true, minExcluded: true, maxExcluded: true }));
    const df = fc.oneof(fc.integer({ min: 1, max: 200 }), fc.double({ min: 0.05, max: 2000, noNaN: true }), fc.constantFrom(14.000000000000034, 11.21074069427918, 999.9999999999999, 1000.0000000000001));
    fc.assert(
      fc.property(level, df, (p, d) => {
        expect(Object.is(bisectQuantile(p, d), plainBisection(p, d).q)).toBe(true);
      }),
      { seed: 30, numRuns: 1500 },
    );
  });

  it("evaluates the CDF at most 40% as often as the plain bisection at a report's levels and degrees of freedom, 70% at df 1 (the bracket is no wider than its ends' check needs)", () => {
    // A nightly report's four quantiles took 22 evaluations each with only the wide bracket (88 in all, enough for V8
    // to compile the continued fraction in the background of a cold analyze); now 15-16.
    for (const [p, df, share] of [
      [0.975, 14, 0.4],
      [0.975, 11.21074069427918, 0.4],
      [0.975, 5, 0.4],
      [0.975, 1, 0.7],
      [0.95, 30, 0.4],
      [0.9, 300, 0.4],
    ] as const) {
      let evaluations = 0;
      bisectQuantile(p, df, () => (evaluations += 1));
      const plain = plainBisection(p, df).evaluations;
      expect(plain).toBeGreaterThanOrEqual(40);
      expect(evaluations, `p ${p}, df ${df}`).toBeLessThanOrEqual(Math.ceil(plain * share));
    }
  });
});
