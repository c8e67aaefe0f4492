import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { designFor, designHalfWidth, varianceComponents } from './plan-design.ts';
import { studentTQuantile } from './student-t.ts';

describe('variance components of a pilot', () => {
  it('by hand: 2 runs × 2 workloads × 2 reps, run 1 = run 0 + 4', () => {
    const run0 = [
      { workload: 'w1', value: 0 },
      { workload: 'w1', value: 2 },
      { workload: 'w2', value: 10 },
      { workload: 'w2', value: 12 },
    ];
    const run1 = run0.map((u) => ({ ...u, value: u.value + 4 }));
    const c = varianceComponents([run0, run1]);
    // Cells {0,2}: s² = 2. Workload means 3 and 13: s² = 50, less 2/(K·R) = 0.5. Run means 6 and 10: s² = 8, less 2/(W·K) = 0.5.
    expect(c).toMatchObject({ residual: 2, workload: 49.5, run: 7.5, mean: 8, workloads: 2, reps: 2, runs: 2 });
    expect(c.icc).toBeCloseTo(49.5 / 51.5, 12);
  });

  it('one run cannot estimate the between-run variance', () => {
    expect(varianceComponents([[{ workload: 'a', value: 1 }, { workload: 'b', value: 3 }]]).run).toBeNull();
    expect(() => varianceComponents([])).toThrow(/at least one run/);
  });
});

describe('designs for a target half-width', () => {
  const t14 = studentTQuantile(0.975, 14);

  it('closed form: σ²_e = 100 only, 15 workloads, 1 run: K ≥ (t14 · 10 / 5)² / 15 = 1.23 → 2 reps; at 80% power (t14 + z0.8)² · 4 / 15 = 2.38 → 3', () => {
    const c = { workload: 0, run: 0, residual: 100, icc: 0, mean: 0, workloads: 15, reps: 3, runs: 1 };
    expect(designFor(c, 5, 1)).toMatchObject({ workloads: 15, reps: 2, runs: 1 });
    expect(designFor(c, 5, 1)!.half_width).toBeCloseTo(t14 * Math.sqrt(100 / 30), 9);
    expect(designFor(c, 5, 1, 0.95, 0.8)).toMatchObject({ workloads: 15, reps: 3 });
  });

  it('closed form: a between-run variance of 100 puts a floor of t · 10 / √R under any number of workloads', () => {
    const c = { workload: 0, run: 100, residual: 0, icc: null, mean: 0, workloads: 15, reps: 1, runs: 3 };
    // R = 10: floor t14 · √10 = 6.8 > 5: unreachable; R = 20: t14 · √5 = 4.8 ≤ 5.
    expect(designFor(c, 5, 10)).toBeNull();
    expect(designFor(c, 5, 20)).toMatchObject({ workloads: 15, reps: 1, runs: 20 });
  });

  it('the design found reaches the target and one rep fewer would not', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 500, noNaN: true }), fc.double({ min: 1, max: 2000, noNaN: true }), fc.double({ min: 1, max: 20, noNaN: true }), fc.integer({ min: 1, max: 5 }), (w, e, target, runs) => {
        const c = { workload: w, run: 0, residual: e, icc: null, mean: 0, workloads: 15, reps: 3, runs: 1 };
        const d = designFor(c, target, runs);
        if (d === null) return;
        expect(d.half_width).toBeLessThanOrEqual(target + 1e-9);
        if (d.workloads === 15 && d.reps > 1) expect(designHalfWidth(c, 15, d.reps - 1, runs)).toBeGreaterThan(target);
      }),
    );
  });

  it('refuses a target ≤ 0', () => {
    expect(() => designFor({ workload: 1, run: 0, residual: 1, icc: 0.5, mean: 0, workloads: 15, reps: 1, runs: 1 }, 0, 1)).toThrow(/> 0/);
  });
});
