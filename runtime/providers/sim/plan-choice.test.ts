import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { choosePlan, competentProbability, sigmoid } from './plan-choice.ts';
import { prngFor, type Prng } from './prng.ts';
import { simTurn } from './test-fixtures.ts';
import type { SimTurn } from '../../../schemas/types/sim.ts';

const unit = fc.double({ min: 0, max: 1, noNaN: true });
const noise = fc.double({ min: -0.5, max: 0.5, noNaN: true, maxExcluded: true });

/** A PRNG that replays fixed floats (as uint32 fractions). */
function fixed(values: number[]): Prng {
  let i = 0;
  const nextUint32 = () => Math.floor(values[i++ % values.length]! * 4294967296) >>> 0;
  return { nextUint32, next: () => nextUint32() / 4294967296 };
}

describe('competentProbability', () => {
  it('is exactly sigmoid(10 (competence − difficulty)) at temperature 0, whatever the noise', () => {
    fc.assert(fc.property(unit, unit, noise, (c, d, n) => {
        expect(competentProbability(c, d, 0, n)).toBe(sigmoid(10 * (c - d)));
      }),
    );
  });

  it('never decreases when competence rises (property)', () => {
    fc.assert(
      fc.property(unit, unit, unit, fc.double({ min: 0, max: 2, noNaN: true }), noise, (c1, c2, d, t, n) => {
        const [lo, hi] = c1 <= c2 ? [c1, c2] : [c2, c1];
        expect(competentProbability(hi, d, t, n)).toBeGreaterThanOrEqual(competentProbability(lo, d, t, n));
      }),
    );
  });

  it('sits at 0.5 when competence equals difficulty and at ~0.92 for a 0.25 edge', () => {
    expect(competentProbability(0.6, 0.6, 0, 0)).toBe(0.5);
    expect(competentProbability(0.85, 0.6, 0, 0)).toBeCloseTo(0.924, 3);
  });
});

describe('choosePlan', () => {
  const turn = simTurn(0.5);

  it('picks the competent plan with frequency ≈ sigmoid over many seeds (within 4.5 σ)', () => {
    for (const competence of [0.6, 0.85]) {
      const n = 20_000;
      let hits = 0;
      for (let seed = 0; seed < n; seed++) {
        const prng = prngFor({ seed, workload: 'w', pass: 'A', rep: 0, turn: 0, model: 'm' });
        if (choosePlan(turn, competence, 0, prng).competent) hits++;
      }
      const p = sigmoid(10 * (competence - 0.5));
      const sigma = Math.sqrt((p * (1 - p)) / n);
      expect(Math.abs(hits / n - p)).toBeLessThan(4.5 * sigma);
    }
  });

  it('with the same draws, a more competent model is competent whenever a less competent one is (property)', () => {
    fc.assert(
      fc.property(unit, unit, noise, unit, unit, fc.double({ min: 0, max: 1, noNaN: true }), (c1, c2, n, u1, u2, t) => {
        const [lo, hi] = c1 <= c2 ? [c1, c2] : [c2, c1];
        const draws = [n + 0.5, u1, u2];
        if (choosePlan(turn, lo, t, fixed(draws)).competent) expect(choosePlan(turn, hi, t, fixed(draws)).competent).toBe(true);
      }),
    );
  });

  it('chooses mistakes in proportion to their weights', () => {
    const weighted: SimTurn = {
      difficulty: 1,
      plans: [
        { id: 'right', competent: true, steps: [], final: 'ok' },
        { id: 'rare', weight: 1, steps: [], final: 'x' },
        { id: 'common', weight: 3, steps: [], final: 'y' },
      ],
    };
    const counts: Record<string, number> = { right: 0, rare: 0, common: 0 };
    const n = 20_000;
    for (let seed = 0; seed < n; seed++) counts[choosePlan(weighted, 0, 0, prngFor({ seed, workload: 'w', pass: 'A', rep: 0, turn: 0, model: 'm' })).plan.id]!++;
    // competence 0 vs difficulty 1: P(competent) = sigmoid(-10) ≈ 4.5e-5.
    expect(counts.right).toBeLessThan(10);
    const share = counts.common! / (counts.common! + counts.rare!);
    expect(Math.abs(share - 0.75)).toBeLessThan(4.5 * Math.sqrt((0.75 * 0.25) / n));
  });

  it('temperature perturbs the odds through the noise draw', () => {
    // noise draw 0.99 → +0.49; at temperature 1 that lifts P well above the temperature-0 value.
    const draws = [0.99, 0.7, 0.5];
    expect(choosePlan(turn, 0.5, 0, fixed(draws)).pCompetent).toBe(0.5);
    expect(choosePlan(turn, 0.5, 1, fixed(draws)).pCompetent).toBeCloseTo(sigmoid(10 * (0.99 - 0.5)), 6);
    expect(choosePlan(turn, 0.5, 1, fixed(draws)).competent).toBe(true);
    expect(choosePlan(turn, 0.5, 0, fixed(draws)).competent).toBe(false);
  });
});
