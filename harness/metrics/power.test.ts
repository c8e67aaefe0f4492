import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decisiveHalfWidth, normalQuantile, unitsNeededForNonInferiority } from './power.ts';

describe('normal quantile', () => {
  it('matches the textbook values', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 6);
    expect(normalQuantile(0.8)).toBeCloseTo(0.841621, 6);
    expect(normalQuantile(0.5)).toBeCloseTo(0, 12);
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232, 5);
    expect(() => normalQuantile(1)).toThrow(/\(0,1\)/);
  });
});

describe('units needed to decide non-inferiority', () => {
  it('closed form: σ = 20 pts, d = 0, margin 5 → ((1.95996 + 0.84162) · 20 / 5)² = 125.6 → 126', () => {
    expect(unitsNeededForNonInferiority({ observedDiff: 0, margin: 5, n: 30, sdPerUnit: 20 }).units).toBe(126);
    // At 50% power only the interval's own quantile counts: (1.95996 · 4)² = 61.5 → 62.
    expect(unitsNeededForNonInferiority({ observedDiff: 0, margin: 5, n: 30, sdPerUnit: 20, power: 0.5 }).units).toBe(62);
  });

  it('recovers σ from an observed interval: ±3.92 on 100 units with a normal quantile is σ = 20', () => {
    const need = unitsNeededForNonInferiority({ observedDiff: 0, margin: 5, n: 100, halfWidth: 1.959964 * 2 });
    expect(need.sdPerUnit).toBeCloseTo(20, 4);
    expect(need.units).toBe(126);
    // With t on 14 df the same half-width means a smaller σ.
    expect(unitsNeededForNonInferiority({ observedDiff: 0, margin: 5, n: 100, halfWidth: 3.92, df: 14 }).sdPerUnit).toBeLessThan(20);
  });

  it('the farther boundary decides: a drop of −11 is decided against 0 (11 away), not against the margin (6 away)', () => {
    expect(decisiveHalfWidth(-11, 5)).toBe(11);
    expect(decisiveHalfWidth(-1, 5)).toBe(4);
    expect(decisiveHalfWidth(-2.5, 5)).toBe(2.5);
  });

  it('no variation: no number of units changes the interval', () => {
    expect(unitsNeededForNonInferiority({ observedDiff: 0, margin: 5, n: 30, halfWidth: 0 }).units).toBeNull();
  });

  it('refuses a margin ≤ 0, a power outside [0.5, 1) and a missing spread', () => {
    expect(() => unitsNeededForNonInferiority({ observedDiff: 0, margin: 0, n: 30, sdPerUnit: 1 })).toThrow(/margin/);
    expect(() => unitsNeededForNonInferiority({ observedDiff: 0, margin: 5, n: 30, sdPerUnit: 1, power: 1 })).toThrow(/power/);
    expect(() => unitsNeededForNonInferiority({ observedDiff: 0, margin: 5, n: 30 })).toThrow(/halfWidth/);
  });

  it('the units it names give an interval that decides at the observed difference', () => {
    fc.assert(
      fc.property(fc.double({ min: -30, max: 30, noNaN: true }), fc.double({ min: 0.5, max: 20, noNaN: true }), fc.double({ min: 1, max: 60, noNaN: true }), (d, m, sd) => {
        const need = unitsNeededForNonInferiority({ observedDiff: d, margin: m, n: 10, sdPerUnit: sd, power: 0.5 });
        const half = (1.959964 * sd) / Math.sqrt(need.units!);
        const lo = d - half;
        const hi = d + half;
        expect(lo > -m - 1e-6 || hi < 1e-6).toBe(true);
        // One unit fewer would not (unless the floor of 2 units binds).
        const halfLess = (1.959964 * sd) / Math.sqrt(need.units! - 1);
        if (need.units! > 2) expect(d - halfLess <= -m + 1e-6 && d + halfLess >= -1e-6).toBe(true);
      }),
    );
  });
});
