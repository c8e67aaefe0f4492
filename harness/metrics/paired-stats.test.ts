import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clusteredFigure, clusteredSeCr2, pairedDifference, pairedSavingsPct, unitCorrelation, unpairedDifference, type PairedUnit } from './paired-stats.ts';
import { incompleteBeta, studentTCdf, studentTQuantile } from './student-t.ts';
import { plainBisection } from './test-support/plain-bisection.ts';

const unit = (cluster: string, a: number, b: number, den = 1): PairedUnit => ({ cluster, a: { num: a, den }, b: { num: b, den } });

describe('Student t', () => {
  it('matches the textbook 97.5% quantiles', () => {
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(12.7062, 3);
    expect(studentTQuantile(0.975, 6)).toBeCloseTo(2.4469, 3);
    expect(studentTQuantile(0.975, 30)).toBeCloseTo(2.0423, 3);
    expect(studentTQuantile(0.025, 6)).toBeCloseTo(-2.4469, 3);
    expect(studentTCdf(0, 4)).toBeCloseTo(0.5, 12);
  });

  it('gives, to the last bit, the CDF and quantile of the plain bisection over incompleteBeta (its beta constant made once per quantile)', () => {
    const cdf = (t: number, df: number) => {
      const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
      return t >= 0 ? 1 - tail : tail;
    };
    const quantile = (p: number, df: number): number => {
      if (p < 0.5) return -quantile(1 - p, df);
      let lo = 0;
      let hi = 1;
      while (cdf(hi, df) < p) hi *= 2;
      for (let i = 0; i < 200 && hi - lo > 1e-12 * Math.max(1, hi); i++) {
        const mid = (lo + hi) / 2;
        if (cdf(mid, df) < p) lo = mid;
        else hi = mid;
      }
      return (lo + hi) / 2;
    };
    const df = fc.oneof(fc.integer({ min: 1, max: 60 }), fc.double({ min: 0.5, max: 300, noNaN: true }));
    fc.assert(
      fc.property(fc.double({ min: 0.001, max: 0.999, noNaN: true }), df, fc.double({ min: -40, max: 40, noNaN: true }), (p, d, t) => {
        expect(Object.is(studentTQuantile(p, d), quantile(p, d))).toBe(true);
        expect(Object.is(studentTCdf(t, d), cdf(t, d))).toBe(true);
      }),
      { seed: 28, numRuns: 300 },
    );
  });

  it('answers a level and df asked again, among other asks, with the number the bisection gives that pair (kept quantiles) (property)', () => {
    const plain = (p: number, df: number): number => plainBisection(p, df).q;
    // Few levels and degrees of freedom, so asks repeat, and one level meets several df (and one df several levels).
    const ask = fc.tuple(fc.constantFrom(0.975, 0.95, 0.8, 0.025), fc.oneof(fc.constantFrom(14, 14.000000000000034, 14.000000000000036, 11.21074069427918), fc.double({ min: 0.5, max: 300, noNaN: true })));
    fc.assert(
      fc.property(fc.array(ask, { minLength: 1, maxLength: 12 }), (asks) => {
        for (const [p, df] of [...asks, ...asks.reverse()]) expect(Object.is(studentTQuantile(p, df), p < 0.5 ? -plain(1 - p, df) : plain(p, df))).toBe(true);
      }),
      { seed: 29, numRuns: 200 },
    );
  });

  it('rejects a level outside (0,1) and df <= 0', () => {
    expect(() => studentTQuantile(1, 3)).toThrow(/\(0,1\)/);
    expect(() => studentTQuantile(0.9, 0)).toThrow(/degrees of freedom/);
  });
});

describe('paired, workload-clustered intervals (Miller 2024)', () => {
  it('an arm against itself: every difference 0 with a [0, 0] interval', () => {
    const units = [unit('w1', 1, 1), unit('w1', 0, 0), unit('w2', 1, 1), unit('w3', 0.3, 0.3, 2)];
    for (const kind of ['ratio', 'total'] as const) expect(pairedDifference(units, kind, 0.95)).toMatchObject({ estimate: 0, se: 0, ci_low: 0, ci_high: 0, units: 4, clusters: 3 });
    expect(pairedSavingsPct(units, 0.95)).toMatchObject({ estimate: 0, ci_low: 0, ci_high: 0 });
  });

  it('savings of B against A: 100 · (1 − ΣB / ΣA), an interval around it', () => {
    const s = pairedSavingsPct([unit('w1', 10, 6), unit('w1', 10, 7), unit('w2', 20, 14), unit('w3', 5, 4)], 0.95);
    expect(s.estimate).toBeCloseTo(100 * (1 - 31 / 45), 12);
    expect(s.ci_low!).toBeLessThan(s.estimate!);
    expect(s.ci_high!).toBeGreaterThan(s.estimate!);
  });

  it('one cluster gives no interval: the standard error needs two workloads', () => {
    expect(pairedDifference([unit('w1', 1, 0), unit('w1', 0, 1)], 'ratio', 0.95)).toMatchObject({ estimate: 0, se: null, ci_low: null, ci_high: null, clusters: 1 });
  });

  it('an empty denominator has no figure', () => {
    expect(clusteredFigure([{ cluster: 'w', value: { num: 0, den: 0 } }], 'ratio', 0.95).estimate).toBeNull();
  });

  it('paired intervals are narrower than unpaired ones when the arms are positively correlated (property)', () => {
    // Each workload has a difficulty both arms share (4 apart from one workload to the next) and each unit a
    // small arm-specific wobble: strongly correlated arms, as a routed and a strong arm on the same tasks are.
    const wobble = fc.double({ min: -0.5, max: 0.5, noNaN: true });
    const arb = fc.array(fc.array(fc.tuple(wobble, wobble), { minLength: 1, maxLength: 5 }), { minLength: 2, maxLength: 6 });
    fc.assert(
      fc.property(arb, (clusters) => {
        const units = clusters.flatMap((us, g) => us.map(([da, db]) => unit(`w${g}`, 4 * g + da, 4 * g + 1 + db)));
        const paired = pairedDifference(units, 'ratio', 0.95);
        const unpaired = unpairedDifference(units, 'ratio', 0.95);
        expect(paired.estimate!).toBeCloseTo(unpaired.estimate!, 9);
        expect(paired.ci_high! - paired.ci_low!).toBeLessThan(unpaired.ci_high! - unpaired.ci_low!);
        expect(unitCorrelation(units)!).toBeGreaterThan(0);
      }),
    );
  });

  it('correlation is 1 for identical arms and null for a constant arm', () => {
    expect(unitCorrelation([unit('a', 1, 1), unit('b', 0, 0), unit('c', 1, 1)])).toBeCloseTo(1, 12);
    expect(unitCorrelation([unit('a', 1, 1), unit('b', 0, 1)])).toBeNull();
  });
});

describe('CR2 (Bell–McCaffrey) clustered variance', () => {
  it('by hand: clusters {1, 3} and {8}: leverages 2/3 and 1/3, Var = (16/9)/(1/3) + (16/9)/(2/3) = 8 on 1 df', () => {
    const e = clusteredFigure(
      [
        { cluster: 'w1', value: { num: 1, den: 1 } },
        { cluster: 'w1', value: { num: 3, den: 1 } },
        { cluster: 'w2', value: { num: 8, den: 1 } },
      ],
      'ratio',
      0.95,
    );
    expect(e.estimate).toBe(4);
    expect(e.se).toBeCloseTo(Math.sqrt(8), 12);
    expect(e.df).toBeCloseTo(1, 12);
  });

  it('equal clusters: G/(G − 1) · Σ E_g² on G − 1 df; a dominant cluster lowers the df', () => {
    const infl = [0.1, -0.3, 0.2, 0.05, -0.05];
    const eq = clusteredSeCr2(infl, ['a', 'b', 'c', 'd', 'e'], [1, 1, 1, 1, 1])!;
    expect(eq.se ** 2).toBeCloseTo((5 / 4) * infl.reduce((s, x) => s + x * x, 0), 12);
    expect(eq.df).toBeCloseTo(4, 12);
    expect(clusteredSeCr2(infl, ['a', 'b', 'c', 'd', 'e'], [20, 1, 1, 1, 1])!.df).toBeLessThan(4);
    expect(clusteredSeCr2(infl, ['a', 'a', 'a', 'a', 'a'])).toBeNull();
  });
});
