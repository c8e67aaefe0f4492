import { Decimal } from 'decimal.js';
import { seededRandom } from '../../runtime/core/seeded-random.ts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixedMixHull, hullAt } from './fixed-mix-hull.ts';
import { apgr, matrixBaselines, operatingFigures } from './operating-point.ts';
import { oraclePicks } from './oracle-choice.ts';
import { outcomeTable, pointOfPicks, singleModelPoints, type MatrixLike } from './outcome-table.ts';

/** A matrix from rows of [cluster, scores per model, costs per model]. */
function matrix(models: string[], rows: [string, number[], number[]][]): MatrixLike {
  return {
    models: models.map((id) => ({ id })),
    tasks: rows.map(([cluster], i) => ({ id: `t${i}`, cluster })),
    cells: rows.map(([, s, c]) => s.map((score, m) => ({ score, costUsd: new Decimal(c[m]!) }))),
  };
}

// Three models on four tasks: cheap A ($1), mid B ($2), strong C ($4); task 4 nobody solves.
const HAND = matrix(
  ['A', 'B', 'C'],
  [
    ['k1', [1, 1, 1], [1, 2, 4]],
    ['k1', [0, 1, 1], [1, 2, 4]],
    ['k2', [0, 0, 1], [1, 2, 4]],
    ['k2', [0, 0, 0], [1, 2, 4]],
  ],
);

describe('matrix baselines on a hand-made matrix', () => {
  const table = outcomeTable(HAND);
  const b = matrixBaselines(table);

  it('single models: cost per task and solved rate', () => {
    expect(singleModelPoints(table).map((p) => [p.cost_per_task_usd.toNumber(), p.solved_rate])).toEqual([
      [1, 0.25],
      [2, 0.5],
      [4, 0.75],
    ]);
  });

  it('oracle: the cheapest model of the best score; a task nobody solves goes to the cheapest model', () => {
    expect(oraclePicks(table)).toEqual([0, 1, 2, 0]);
    expect(b.oraclePoint.cost_per_task_usd.toNumber()).toBe(2);
    expect(b.oraclePoint.solved_rate).toBe(0.75);
  });

  it('oracle ties in cost go to the model listed first', () => {
    expect(oraclePicks(outcomeTable(matrix(['X', 'Y'], [['k', [1, 1], [3, 3]]])))).toEqual([0]);
  });

  it('the hull at a given cost: interpolated between vertices, flat beyond both ends', () => {
    expect(b.hull.map((v) => v.model)).toEqual([0, 1, 2]);
    expect(hullAt(b.hull, 1.5)).toBeCloseTo(0.375, 12);
    expect(hullAt(b.hull, 3)).toBeCloseTo(0.625, 12);
    expect(hullAt(b.hull, 0.5)).toBe(0.25);
    expect(hullAt(b.hull, 9)).toBe(0.75);
  });

  it('a model below the chord of its neighbours, or dearer without solving more, is not on the hull', () => {
    const pts = [
      { cost_per_task_usd: new Decimal(1), solved_rate: 0.2 },
      { cost_per_task_usd: new Decimal(2), solved_rate: 0.3 },
      { cost_per_task_usd: new Decimal(3), solved_rate: 0.8 },
      { cost_per_task_usd: new Decimal(5), solved_rate: 0.8 },
    ];
    expect(fixedMixHull(pts).map((v) => v.model)).toEqual([0, 2]);
  });

  it('a router: hull gap, random-at-mix, PGR and oracle capture as exact values', () => {
    const f = operatingFigures(b, [0, 1, 1, 0]);
    expect(f.cost_per_task_usd.toNumber()).toBe(1.5);
    expect(f.solved_rate.estimate).toBe(0.5);
    expect(f.hull_gap_pts.estimate).toBeCloseTo(12.5, 10);
    expect(f.vs_random_at_mix_pts.estimate).toBeCloseTo(12.5, 10);
    expect(f.pgr.estimate).toBeCloseTo(0.5, 12);
    expect(f.oracle_capture.estimate).toBeCloseTo(0.5, 12);
    expect(f.mix).toEqual([0.5, 0.5, 0]);
    expect(f.hull_gap_pts.clusters).toBe(2);
  });

  it('APGR: the area under PGR over normalised cost, anchored at (0, 0) and (1, 1)', () => {
    expect(apgr(b, [[0, 1, 1, 0]]).estimate).toBeCloseTo(2 / 3, 12);
    // A random mix of the two ends lies on the diagonal.
    expect(apgr(b, [[0, 0, 2, 2]]).estimate).toBeCloseTo(0.5, 12);
    expect(apgr(b, []).estimate).toBeNull();
  });

  it('a router that copies the oracle captures 1', () => {
    expect(operatingFigures(b, b.oracle).oracle_capture.estimate).toBeCloseTo(1, 12);
  });

  it('the candidate pool: a subset in the order given; an unknown or repeated id is refused', () => {
    const sub = outcomeTable(HAND, ['C', 'A']);
    expect(sub.models).toEqual(['C', 'A']);
    expect(sub.score[1]).toEqual([1, 0]);
    expect(() => outcomeTable(HAND, ['Z'])).toThrow(/'Z' is not a model of this matrix; its models are A, B, C/);
    expect(() => outcomeTable(HAND, ['A', 'A'])).toThrow(/listed twice/);
  });
});

/** Random matrices: 2–4 models, 4–40 tasks over 2–6 clusters, scores 0/1, costs in cents. */
const arbMatrix = fc.integer({ min: 2, max: 4 }).chain((k) =>
  fc
    .array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.array(fc.integer({ min: 0, max: 1 }), { minLength: k, maxLength: k }), fc.array(fc.integer({ min: 1, max: 500 }), { minLength: k, maxLength: k })), {
      minLength: 4,
      maxLength: 40,
    })
    .map((rows) =>
      matrix(
        Array.from({ length: k }, (_, i) => `m${i}`),
        rows.map(([c, s, cost], i) => [`k${i < 2 ? i : c}`, s, cost.map((x) => x / 100)]),
      ),
    ),
);

describe('matrix baselines: properties', () => {
  it('the hull is concave, never falls, and lies on or above every single model', () => {
    fc.assert(
      fc.property(arbMatrix, (m) => {
        const b = matrixBaselines(outcomeTable(m));
        for (const p of b.singles) expect(hullAt(b.hull, p.cost_per_task_usd.toNumber())).toBeGreaterThanOrEqual(p.solved_rate - 1e-12);
        const slopes = b.hull.slice(1).map((v, i) => (v.rate - b.hull[i]!.rate) / (v.cost - b.hull[i]!.cost));
        slopes.forEach((s, i) => {
          expect(s).toBeGreaterThan(0);
          if (i > 0) expect(s).toBeLessThan(slopes[i - 1]! + 1e-12);
        });
      }),
    );
  });

  it('a single model: never above the hull, exactly on it when it is a vertex, 0 against random at its own mix', () => {
    fc.assert(
      fc.property(arbMatrix, (m) => {
        const b = matrixBaselines(outcomeTable(m));
        b.singles.forEach((_, j) => {
          const f = operatingFigures(
            b,
            b.table.score.map(() => j),
          );
          expect(f.hull_gap_pts.estimate!).toBeLessThanOrEqual(1e-9);
          if (b.hull.some((v) => v.model === j)) expect(Math.abs(f.hull_gap_pts.estimate!)).toBeLessThan(1e-9);
          expect(Math.abs(f.vs_random_at_mix_pts.estimate!)).toBeLessThan(1e-9);
        });
      }),
    );
  });

  it('the oracle solves the most, and copying it captures 1', () => {
    fc.assert(
      fc.property(arbMatrix, (m) => {
        const b = matrixBaselines(outcomeTable(m));
        for (const p of b.singles) expect(b.oraclePoint.solved_rate).toBeGreaterThanOrEqual(p.solved_rate);
        const cap = operatingFigures(b, b.oracle).oracle_capture.estimate;
        if (b.oraclePoint.solved_rate > b.singles[b.weak]!.solved_rate) expect(cap).toBeCloseTo(1, 12);
        else expect(cap).toBeNull();
        expect(pointOfPicks(b.table, b.oracle).solved_rate).toBe(b.oraclePoint.solved_rate);
      }),
    );
  });
});

describe('a coin-flip router lies on the hull within its interval', () => {
  it('over 60 random matrices the 95% interval of its hull gap holds 0 at least 85% of the time', () => {
    let covered = 0;
    const runs = 60;
    for (let seed = 1; seed <= runs; seed++) {
      const r = seededRandom(seed);
      // 20 clusters of 15 tasks; cluster difficulty varies, so outcomes are correlated within a cluster.
      const rows: [string, number[], number[]][] = [];
      for (let c = 0; c < 20; c++) {
        const easy = r();
        for (let i = 0; i < 15; i++) rows.push([`k${c}`, [r() < 0.3 + 0.4 * easy ? 1 : 0, r() < 0.5 + 0.4 * easy ? 1 : 0], [0.01 + 0.01 * r(), 0.1 + 0.05 * r()]]);
      }
      const b = matrixBaselines(outcomeTable(matrix(['cheap', 'strong'], rows)));
      const f = operatingFigures(
        b,
        rows.map(() => (r() < 0.5 ? 0 : 1)),
      );
      if (f.hull_gap_pts.ci_low! <= 0 && f.hull_gap_pts.ci_high! >= 0) covered++;
    }
    expect(covered / runs).toBeGreaterThanOrEqual(0.85);
  });
});
