import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  apgrVsRandom,
  cheapestWithinEpsilon,
  dominates,
  hindsightOracle,
  hullGapPts,
  oracleCapture,
  qualityRegret,
  randomRouter,
  savingsRate,
  suitePoint,
  trueOracle,
  type ArmOnWorkload,
} from './oracle.ts';
import { scriptSolvedProbability, turnCompetentProbability } from './oracle-sim-truth.ts';
import type { SimScript } from '../../runtime/providers/sim/index.ts';

const H = 'haiku';
const S = 'sonnet';
const arm = (model: string, cost: string, solved: number, score: number | null): ArmOnWorkload => ({ model, mean_cost_usd: new Decimal(cost), solved_rate: solved, mean_score: score });

// A hand-made A/B outcome set: three workloads, one where haiku ties, one where sonnet is needed, one within ε.
const SET = [
  { workload: 'easy', arms: [arm(H, '0.10', 1, 0.9), arm(S, '0.30', 1, 0.9)] },
  { workload: 'hard', arms: [arm(H, '0.20', 0, 0.3), arm(S, '0.60', 1, 0.8)] },
  { workload: 'close', arms: [arm(H, '0.05', 2 / 3, 0.78), arm(S, '0.15', 1, 0.8)] },
];

describe('hindsight oracle', () => {
  it('picks per workload the cheapest model within ε of the best mean gated score, with exact cost and solved rate', () => {
    const o = hindsightOracle(SET, 0.02);
    expect(o.choices).toEqual([
      { workload: 'easy', model: H },
      { workload: 'hard', model: S },
      { workload: 'close', model: H }, // 0.78 is within 0.02 of 0.80
    ]);
    expect(o.point.cost_usd.toString()).toBe('0.75'); // 0.10 + 0.60 + 0.05
    expect(o.point.solved_rate).toBeCloseTo((1 + 1 + 2 / 3) / 3, 12);
    // With ε = 0 the close workload needs sonnet.
    expect(hindsightOracle(SET, 0).choices[2]).toEqual({ workload: 'close', model: S });
  });

  it('savings, capture and regret of a router against it are exact', () => {
    const strong = suitePoint([{ cost_usd: new Decimal('0.30'), solved_rate: 1 }, { cost_usd: new Decimal('0.60'), solved_rate: 1 }, { cost_usd: new Decimal('0.15'), solved_rate: 1 }]);
    expect(strong.cost_usd.toString()).toBe('1.05');
    const oracle = hindsightOracle(SET, 0.02).point;
    expect(savingsRate(strong, oracle)).toBeCloseTo(0.3 / 1.05, 12);
    // A router that spent 0.90 and solved 8/9: it saved 0.15 of the oracle's 0.30.
    const routed = { cost_usd: new Decimal('0.90'), solved_rate: 8 / 9 };
    expect(oracleCapture(strong, oracle, routed)).toBeCloseTo(0.5, 12);
    expect(qualityRegret(oracle, routed)).toBeCloseTo((1 + 1 + 2 / 3) / 3 - 8 / 9, 12);
    // An oracle that saves nothing leaves capture undefined.
    expect(oracleCapture(strong, strong, routed)).toBeNull();
  });

  it('never chooses an arm without a score, and skips a workload with none', () => {
    expect(cheapestWithinEpsilon([arm(H, '0.1', 0, null), arm(S, '0.3', 1, 0.9)], (a) => a.mean_score, 0.02)!.model).toBe(S);
    expect(hindsightOracle([{ workload: 'x', arms: [arm(H, '0.1', 0, null)] }]).choices).toEqual([]);
    expect(() => cheapestWithinEpsilon([arm(H, '0.1', 0, 1)], (a) => a.mean_score, -0.1)).toThrow(RangeError);
  });

  it('property: the choice is within ε of the best, and no cheaper arm is', () => {
    const arb = fc.array(fc.record({ cost: fc.integer({ min: 0, max: 1000 }), score: fc.double({ min: 0, max: 1, noNaN: true }) }), { minLength: 1, maxLength: 5 });
    fc.assert(
      fc.property(arb, fc.double({ min: 0, max: 0.5, noNaN: true }), (xs, eps) => {
        const arms = xs.map((x, i) => arm(`m${i}`, String(x.cost), 0, x.score));
        const pick = cheapestWithinEpsilon(arms, (a) => a.mean_score, eps)!;
        const best = Math.max(...xs.map((x) => x.score));
        expect(pick.mean_score!).toBeGreaterThanOrEqual(best - eps - 1e-9);
        for (const a of arms) if (a.mean_cost_usd.lt(pick.mean_cost_usd)) expect(a.mean_score!).toBeLessThan(best - eps);
      }),
    );
  });

  it('property: the oracle costs no more than the strong arm when the strong arm is the best-scoring and most expensive', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ ch: fc.integer({ min: 1, max: 100 }), extra: fc.integer({ min: 0, max: 100 }), sc: fc.double({ min: 0, max: 1, noNaN: true }), gap: fc.double({ min: 0, max: 1, noNaN: true }) }), { minLength: 1, maxLength: 6 }), (ws) => {
        const set = ws.map((w, i) => ({ workload: `w${i}`, arms: [arm(H, String(w.ch), 0, w.sc * (1 - w.gap)), arm(S, String(w.ch + w.extra), 1, w.sc)] }));
        const strong = suitePoint(ws.map((w) => ({ cost_usd: new Decimal(w.ch + w.extra), solved_rate: 1 })));
        expect(hindsightOracle(set).point.cost_usd.lte(strong.cost_usd)).toBe(true);
      }),
    );
  });
});

describe('random router and APGR', () => {
  const A = { cost_usd: new Decimal('1'), solved_rate: 0.4 };
  const B = { cost_usd: new Decimal('3'), solved_rate: 0.9 };
  it('interpolates the forced arms linearly at the strong-call share', () => {
    const r = randomRouter(A, B, 0.25);
    expect(r.cost_usd.toString()).toBe('1.5');
    expect(r.solved_rate).toBeCloseTo(0.525, 12);
    expect(() => randomRouter(A, B, 1.5)).toThrow(RangeError);
  });
  it('APGR against random is the router\'s PGR minus the share', () => {
    const random = randomRouter(A, B, 0.25);
    const routed = { cost_usd: new Decimal('1.5'), solved_rate: 0.8 };
    expect(apgrVsRandom(A, B, routed, random)).toBeCloseTo(0.8 - 0.25, 12);
    expect(apgrVsRandom(A, { ...B, solved_rate: 0.4 }, routed, random)).toBeNull(); // no gap to recover
    expect(dominates(routed, random)).toBe(true);
    expect(dominates(random, random)).toBe(false);
  });
  it('property: the random router lies between the arms', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), (s) => {
        const r = randomRouter(A, B, s);
        expect(r.cost_usd.gte(A.cost_usd) && r.cost_usd.lte(B.cost_usd)).toBe(true);
        expect(r.solved_rate).toBeGreaterThanOrEqual(0.4 - 1e-12);
        expect(r.solved_rate).toBeLessThanOrEqual(0.9 + 1e-12);
      }),
    );
  });
});

describe('true oracle (simulator truth)', () => {
  it('P(competent) is sigmoid(10 (c - d)) at temperature 0, and the mean over the noise above it', () => {
    expect(turnCompetentProbability(0.6, 0.6, 0)).toBeCloseTo(0.5, 12);
    expect(turnCompetentProbability(0.85, 0.35, 0)).toBeCloseTo(1 / (1 + Math.exp(-5)), 12);
    // Closed form against a fine midpoint sum over u in [-0.5, 0.5).
    const n = 20_000;
    let sum = 0;
    for (let i = 0; i < n; i++) sum += 1 / (1 + Math.exp(-10 * (0.6 - 0.5 + 0.7 * (-0.5 + (i + 0.5) / n))));
    expect(turnCompetentProbability(0.6, 0.5, 0.7)).toBeCloseTo(sum / n, 6);
  });
  it('a script is solved with the product of its turns\' P, workers included', () => {
    const turn = (difficulty: number) => ({ difficulty, plans: [] }) as unknown as SimScript['turns'][number];
    const script = { turns: [turn(0.4), turn(0.5)], workers: [{ match: 'x', turns: [turn(0.3)] }] } as unknown as SimScript;
    const sig = (x: number) => 1 / (1 + Math.exp(-10 * x));
    expect(scriptSolvedProbability(script, 0.6, 0)).toBeCloseTo(sig(0.2) * sig(0.1) * sig(0.3), 12);
  });
  it('chooses the cheapest model within ε of the best P(solved)', () => {
    const o = trueOracle([
      { workload: 'a', arms: [{ model: H, mean_cost_usd: new Decimal('1'), p_solved: 0.95 }, { model: S, mean_cost_usd: new Decimal('3'), p_solved: 0.96 }] },
      { workload: 'b', arms: [{ model: H, mean_cost_usd: new Decimal('1'), p_solved: 0.5 }, { model: S, mean_cost_usd: new Decimal('3'), p_solved: 0.9 }] },
    ]);
    expect(o.choices.map((c) => c.model)).toEqual([H, S]);
    expect(o.point.cost_usd.toString()).toBe('4');
    expect(o.point.solved_rate).toBeCloseTo((0.95 + 0.9) / 2, 12);
  });
});

describe('hull gap (issue 23 item 3)', () => {
  const p = (cost: string, solved: number) => ({ cost_usd: new Decimal(cost), solved_rate: solved });
  it('points above or below the best fixed A/B mix at the router\'s cost', () => {
    // Halfway in cost between A (0.1, 50%) and B (0.3, 90%): the mix solves 70%; a router at 60% is 10 pts below.
    expect(hullGapPts(p('0.1', 0.5), p('0.3', 0.9), p('0.2', 0.6))).toBeCloseTo(-10, 9);
    // Costlier than B: B itself is the best affordable mix.
    expect(hullGapPts(p('0.1', 0.5), p('0.3', 0.9), p('0.4', 0.95))).toBeCloseTo(5, 9);
    // Cheaper than either arm: no fixed mix to compare with.
    expect(hullGapPts(p('0.1', 0.5), p('0.3', 0.9), p('0.05', 0.4))).toBeNull();
  });
  it('property: a fixed mix has no gap, and the gap never rewards spending more for the same solved rate', () => {
    const rate = fc.double({ min: 0, max: 1, noNaN: true });
    const cost = fc.integer({ min: 1, max: 10_000 }).map((c) => new Decimal(c).div(1000));
    fc.assert(
      fc.property(cost, rate, cost, rate, fc.double({ min: 0, max: 1, noNaN: true }), (ca, sa, cb, sb, t) => {
        const a = { cost_usd: ca, solved_rate: sa };
        const b = { cost_usd: cb, solved_rate: sb };
        const mix = randomRouter(a, b, t);
        expect(hullGapPts(a, b, mix)!).toBeLessThanOrEqual(1e-6);
        const dearer = { cost_usd: mix.cost_usd.times(2), solved_rate: mix.solved_rate };
        expect(hullGapPts(a, b, dearer)!).toBeLessThanOrEqual(hullGapPts(a, b, mix)! + 1e-6);
      }),
    );
  });
});
