import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../runtime/core/seeded-random.ts';
import { apgrCallShare, cpt, cptCallShare, trapezoidArea } from './call-share.ts';
import { buildMatrixReport, type MatrixRunData } from './matrix-report.ts';
import { runNestedCrossFit, type MatrixProtocolDeps } from './matrix-protocol.ts';
import type { MatrixRouter } from './matrix-router.ts';
import { splitOfCluster, splitRows } from './matrix-split.ts';
import { nestedChoice } from './nested-choice.ts';
import { matrixBaselines } from './operating-point.ts';
import { outcomeTable, type OutcomeTable } from './outcome-table.ts';
import { costOnlyPicks, lookupPicks } from './router-baselines.ts';
import { parseTarget } from './routing-target.ts';
import { simultaneousBand } from './simultaneous-band.ts';
import { handProvenance } from './test-support/hand-provenance.ts';

/** Two models, cheap ($1) and strong ($10), from rows of [cluster, cheap score, strong score]. */
function table(rows: readonly [string, number, number][]): OutcomeTable {
  return outcomeTable({
    models: [{ id: 'cheap' }, { id: 'strong' }],
    tasks: rows.map(([cluster], i) => ({ id: `t${i}`, cluster })),
    cells: rows.map(([, c, s]) => [
      { score: c, costUsd: new Decimal(1) },
      { score: s, costUsd: new Decimal(10) },
    ]),
  });
}

describe('nested choice of the operating point', () => {
  // 40 tasks, 8 clusters; fold 0 = tasks 0..19, fold 1 = 20..39. Two knobs: 0 = always strong, 1 = always cheap.
  // Each half either ties (cheap solves what strong solves) or favours strong (strong solves all, cheap half).
  type Half = 'tie' | 'strong';
  const rows = (h0: Half, h1: Half): [string, number, number][] =>
    Array.from({ length: 40 }, (_, i): [string, number, number] => [`k${i % 8}`, i % 2, (i < 20 ? h0 : h1) === 'tie' ? i % 2 : 1]);
  const folds = Array.from({ length: 40 }, (_, i) => (i < 20 ? 0 : 1));
  const outer = [Array.from({ length: 40 }, () => 1), Array.from({ length: 40 }, () => 0)];
  // Inner validation: every training task routed at each knob as the knob says.
  const inner = [0, 1].map((f) => outer.map((p) => p.map((m, t) => (folds[t] === f ? -1 : m))));
  const knobs = (h0: Half, h1: Half) => nestedChoice(table(rows(h0, h1)), [0, 0.5], outer, { folds, inner }, parseTarget('quality=1')).byFold.map((f) => f.knob);

  it("reads no test-fold outcome: each fold's knob follows its training half and ignores its own", () => {
    // Fold 0 trains on tasks 20..39, fold 1 on 0..19: strong needed → knob 0, a tie → the cheap knob 1.
    expect(knobs('tie', 'strong')).toEqual([0, 1]);
    expect(knobs('strong', 'tie')).toEqual([1, 0]);
    expect(knobs('tie', 'tie')).toEqual([1, 1]);
    expect(knobs('strong', 'strong')).toEqual([0, 0]);
  });

  it('the protocol never seeds an inner store with an outer test task', async () => {
    const t = table(rows('tie', 'strong'));
    const learnt: Set<number>[] = [];
    const routedBy: Map<number, number>[] = [];
    const d: MatrixProtocolDeps = {
      tasks: t.taskIds.map((id, i) => ({ text: id, cluster: t.clusters[i]! })),
      table: t,
      costWeights: [0, 0.5],
      openStore: () => ({ batch: async (f: () => Promise<void>) => f(), size: () => ({ outcomes: 0, fingerprints: 0 }), close: () => {} }) as never,
      routerFor: (): MatrixRouter => {
        const seen = new Set<number>();
        learnt.push(seen);
        const i = learnt.length - 1;
        routedBy.push(new Map());
        return {
          route: (task) => {
            routedBy[i]!.set(Number(task.text.slice(1)), 1);
            return 0;
          },
          learn: (task) => {
            seen.add(Number(task.text.slice(1)));
            return Promise.resolve();
          },
          features: () => ({}) as never,
          warm: () => Promise.resolve(),
        };
      },
    };
    const run = await runNestedCrossFit(d, folds, 'known', { k: 3, setting: 'tasks', seed: 1 });
    // Stores: outer fold 0, its 3 inner, outer fold 1, its 3 inner.
    expect(learnt).toHaveLength(8);
    for (const [s, fold] of [
      [1, 0],
      [2, 0],
      [3, 0],
      [5, 1],
      [6, 1],
      [7, 1],
    ] as const) {
      for (const task of learnt[s]!) expect(folds[task]).not.toBe(fold);
      for (const task of routedBy[s]!.keys()) {
        expect(folds[task]).not.toBe(fold);
        expect(learnt[s]!.has(task)).toBe(false);
      }
    }
    // Every training task has a validated pick at every knob.
    for (const f of [0, 1]) for (const sweep of run.nested![f]!) sweep.forEach((m, task) => expect(m >= 0).toBe(folds[task] !== f));
  });
});

describe('a matrix with no signal', () => {
  it('routes as the best fixed choice and says routing adds nothing', () => {
    const random = seededRandom(3);
    const rows = Array.from({ length: 400 }, (_, i): [string, number, number] => [`k${i % 20}`, random() < 0.6 ? 1 : 0, random() < 0.7 ? 1 : 0]);
    const t = table(rows);
    const pick = seededRandom(9);
    // A router with no signal: at each knob it sends a share of tasks to strong at random.
    const shares = [1, 0.8, 0.5, 0.2, 0];
    const outer = shares.map((s) => rows.map(() => (pick() < s ? 1 : 0)));
    const folds = rows.map((_, i) => i % 5);
    const nested = [0, 1, 2, 3, 4].map((f) => shares.map((s) => rows.map((_, i) => (folds[i] === f ? -1 : pick() < s ? 1 : 0))));
    const data: MatrixRunData = {
      provenance: handProvenance({ tasks: 400, points: shares.length, folds: 5 }, { target: 'quality=2', clusters: 20 }),
      table: t,
      settings: [{ setting: 'unseen_tasks', picks: outer, store: { outcomes_max: 0, fingerprints_max: 0, stores: 5 }, folds, nested }],
      chars: rows.map((_, i) => 20 + (i % 7)),
    };
    const r = buildMatrixReport(data);
    expect(r.verdict.routing_adds_nothing).toBe(true);
    expect(r.verdict.use_model).toBe('strong');
    expect(r.headline).toContain('Routing adds nothing here: use strong');
    // On the hull: the fixed choice is a hull vertex.
    expect(Math.abs(r.settings[0]!.chosen!.point.hull_gap_pts.estimate!)).toBeLessThan(1e-9);
  });
});

describe('the simultaneous band', () => {
  it('covers a null sweep of 8 correlated points at least 94% of the time (seeded)', () => {
    const random = seededRandom(11);
    const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    const G = 30;
    const per = 10;
    const clusters = Array.from({ length: G * per }, (_, i) => `c${Math.floor(i / per)}`);
    let covered = 0;
    let pointwise = 0;
    const reps = 400;
    for (let r = 0; r < reps; r++) {
      const ce = Array.from({ length: G }, normal);
      const base = clusters.map((_, i) => ce[Math.floor(i / per)]! + normal());
      const values = Array.from({ length: 8 }, () => base.map((b) => 0.7 * b + normal()));
      const band = simultaneousBand(values, clusters, { seed: r, draws: 1000 })!;
      if (band.low.every((l, i) => l <= 0 && band.high[i]! >= 0)) covered++;
      // The pointwise 95% intervals (critical ≈ t quantile) cover all eight far less often.
      const pw = values.every((_, i) => {
        const half = ((band.high[i]! - band.low[i]!) / 2 / band.critical) * 2.045;
        return Math.abs(band.estimates[i]!) <= half;
      });
      if (pw) pointwise++;
    }
    expect(covered / reps).toBeGreaterThanOrEqual(0.94);
    expect(pointwise / reps).toBeLessThan(0.9);
  });
});

describe('baselines and call-share metrics on hand-made matrices', () => {
  it('the per-cluster lookup sends each training cluster to its best gain per dollar, unseen clusters to the store-wide choice', () => {
    // Cluster a: strong adds 1 per task (gain per dollar 1/9); b: strong adds nothing; c: only in the test fold.
    const rows: [string, number, number][] = [
      ['a', 0, 1],
      ['a', 0, 1],
      ['b', 1, 1],
      ['b', 1, 1],
      ['a', 0, 1],
      ['b', 1, 1],
      ['c', 0, 0],
    ];
    const t = table(rows);
    const train = [0, 1, 2, 3];
    const test = [4, 5, 6];
    // quality=0: match the best single model (strong, 100%) on training tasks as cheaply as possible.
    const r = lookupPicks(t, train, test, parseTarget('quality=0'), { k: 2, setting: 'tasks', seed: 1 });
    // a → strong, b → cheap; c unseen → store-wide: strong's gain 0.5 per $9 clears the chosen τ.
    expect(r.picks).toEqual([1, 0, 1]);
    // budget=1: nothing dearer than cheap fits.
    expect(lookupPicks(t, train, test, parseTarget('budget=1'), { k: 2, setting: 'tasks', seed: 1 }).picks).toEqual([0, 0, 0]);
  });

  it('the cost-only rule sends the shortest prompts to the strong model, reading no outcome of them', () => {
    const rows: [string, number, number][] = Array.from({ length: 8 }, (_, i): [string, number, number] => ['k', i < 4 ? 0 : 1, 1]);
    const t = table(rows);
    const chars = [10, 20, 30, 40, 50, 60, 70, 80];
    // Training tasks 0..7; the short half needs strong: quality=0 needs share 0.5.
    const r = costOnlyPicks(t, chars, [0, 1, 2, 3, 4, 5, 6, 7], [0, 3, 4, 7], parseTarget('quality=0'));
    // 0.45 and 0.5 of eight prompts are both four: the cheaper-on-a-tie first share wins.
    expect(Math.round(r.share * 8)).toBe(4);
    expect(r.picks).toEqual([1, 1, 0, 0]);
  });

  it('APGR and CPT on call share follow RouteLLM: trapezoid through (0, 0) and (1, 1)', () => {
    expect(trapezoidArea([])).toBe(0.5);
    expect(trapezoidArea([{ x: 0.5, y: 1 }])).toBe(0.75);
    expect(cpt([{ x: 0.5, y: 1 }], 0.5)).toBe(0.25);
    expect(cpt([{ x: 0.2, y: 0.4 }, { x: 0.6, y: 0.9 }], 0.8)).toBeCloseTo(0.2 + (0.4 / 0.5) * 0.4, 12);
    // Four tasks: strong solves tasks 0, 1 only; cheap none. Point A sends task 0 to strong (x 0.25, PGR 0.5);
    // point B tasks 0, 1 (x 0.5, PGR 1). Area: 0.25·0.25 + 0.25·0.75 + 0.5·1 = 0.75.
    const t = table([
      ['a', 0, 1],
      ['b', 0, 1],
      ['c', 0, 0],
      ['d', 0, 0],
    ]);
    const b = matrixBaselines(t);
    const curve = [
      [1, 0, 0, 0],
      [1, 1, 0, 0],
    ];
    expect(apgrCallShare(b, curve).estimate).toBeCloseTo(0.75, 12);
    const c = cptCallShare(b, curve, { reps: 200, seed: 1 });
    expect(c.cpt50.estimate).toBeCloseTo(0.25, 12);
    expect(c.cpt80.estimate).toBeCloseTo(0.25 + 0.25 * (0.3 / 0.5), 12);
    expect(c.cpt50.ci_low).not.toBeNull();
  });
});

describe('--target', () => {
  it('reads the three targets, defaults to quality=2, and refuses anything else naming the fix', () => {
    expect(parseTarget(undefined)).toEqual({ kind: 'quality', value: 2 });
    expect(parseTarget('budget=0.0005')).toEqual({ kind: 'budget', value: 0.0005 });
    expect(parseTarget('cost_weight=0.1')).toEqual({ kind: 'cost_weight', value: 0.1 });
    expect(() => parseTarget('cost_weight=2')).toThrow(/out of range; write --target cost_weight=X/);
    expect(() => parseTarget('speed=3')).toThrow(/not understood/);
  });
});

describe('dev and confirm halves', () => {
  it('split by a stable hash of the cluster, about 70% dev', () => {
    const clusters = Array.from({ length: 1000 }, (_, i) => `cluster-${i}`);
    const dev = splitRows(clusters, 'dev');
    const confirm = splitRows(clusters, 'confirm');
    expect(dev.length + confirm.length).toBe(1000);
    expect(dev.length / 1000).toBeGreaterThan(0.65);
    expect(dev.length / 1000).toBeLessThan(0.75);
    expect(splitRows(clusters, 'all')).toHaveLength(1000);
    // sha256 of the id alone decides: "abstract_algebra" starts 0xc511885c (above 0.7·2^32: confirm),
    // "gsm8k-len-01" 0x854a22f2 (below: dev).
    expect(splitOfCluster('abstract_algebra')).toBe('confirm');
    expect(splitOfCluster('gsm8k-len-01')).toBe('dev');
    expect(new Set(dev.map((t) => clusters[t]))).not.toContain(clusters[confirm[0]!]);
  });
});
