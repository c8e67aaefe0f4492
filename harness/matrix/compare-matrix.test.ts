import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { validatorFor } from '../../runtime/core/schemas.ts';
import type { Arm, MatrixCompareArtifact } from '../../schemas/types/matrix-compare.ts';
import { features } from '../../runtime/patterns/test-support/feature-fixtures.ts';
import { compareMatrixRuns, renderMatrixCompare } from './compare-matrix.ts';
import { buildMatrixReport, type MatrixRunData, type SettingName } from './matrix-report.ts';
import { matrixTightness, sampleByCluster } from './matrix-tightness.ts';
import { outcomeTable } from './outcome-table.ts';
import { handProvenance } from './test-support/hand-provenance.ts';

// Two models on four clusters of five tasks: cheap ($0.001) solves slots 0–1 of each cluster, strong ($0.010) slots 0–3.
const CLUSTERS = ['k0', 'k1', 'k2', 'k3'];
const rows = Array.from({ length: 20 }, (_, i) => ({ cluster: CLUSTERS[i % 4]!, slot: Math.floor(i / 4) }));
const table = outcomeTable({
  models: [{ id: 'cheap' }, { id: 'strong' }],
  tasks: rows.map((r, i) => ({ id: `t${i}`, cluster: r.cluster })),
  cells: rows.map((r) => [
    { score: r.slot < 2 ? 1 : 0, costUsd: new Decimal('0.001') },
    { score: r.slot < 4 ? 1 : 0, costUsd: new Decimal('0.010') },
  ]),
});

function run(picks: Partial<Record<SettingName, number[][]>>, over: Partial<MatrixRunData['provenance']> = {}): MatrixRunData {
  const points = Object.values(picks)[0]!.length;
  return {
    provenance: handProvenance({ tasks: 20, points, folds: 4 }, over),
    table,
    settings: Object.entries(picks).map(([setting, p]) => ({ setting: setting as SettingName, picks: p, store: { outcomes_max: 4, fingerprints_max: 2, stores: 4 } })),
  };
}

const ARMS: [Arm, Arm] = [
  { label: 'v1', fingerprint_version: 'v1', embedding_provider: null, routing_config: null, json: '/x/v1.json', db: '/x/v1.db' },
  { label: 'v2', fingerprint_version: 'v2', embedding_provider: 'local:hashing-384', routing_config: null, json: '/x/v2.json', db: '/x/v2.db' },
];
const allCheap = rows.map(() => 0);
// Strong on slots 2–3 (where only strong solves), cheap elsewhere: the oracle's picks.
const smart = rows.map((r) => (r.slot === 2 || r.slot === 3 ? 1 : 0));
const withTightness = (c: Omit<MatrixCompareArtifact, 'tightness'>): MatrixCompareArtifact => ({ ...c, tightness: null });

describe('compareMatrixRuns: two arms on the same tasks, folds and seed, paired per task', () => {
  it('gives B − A exactly, with intervals over the 4 clusters, and words that follow the intervals', () => {
    const c = compareMatrixRuns(run({ unseen_tasks: [allCheap, smart] }), run({ unseen_tasks: [smart, smart] }), ARMS);
    expect(c.identical).toBe(false);
    expect(c.message).toMatch(/^Routing judged out of sample \(out of sample by task/);
    expect(c.message).toContain('on 20 tasks in 4 clusters');
    const [p0, p1] = c.settings[0]!.points as [MatrixCompareArtifact['settings'][0]['points'][0], MatrixCompareArtifact['settings'][0]['points'][0]];
    // cw 0: A all cheap (40% at $0.001), B the oracle (80% at (12 × 0.001 + 8 × 0.010) / 20 = $0.0046).
    expect(p0.tasks_routed_differently).toBe(8);
    expect(p0.a).toMatchObject({ solved_rate: 0.4, cost_per_task_usd: '0.001' });
    expect(p0.b).toMatchObject({ solved_rate: 0.8, cost_per_task_usd: '0.0046' });
    expect(p0.solved_rate_diff_pts.estimate).toBeCloseTo(40, 10);
    expect(p0.solved_rate_diff_pts.clusters).toBe(4);
    expect(p0.cost_per_task_diff_usd.estimate).toBeCloseTo(0.0036, 12);
    expect(p0.savings_pct.estimate).toBeCloseTo(-360, 8);
    // Each arm's hull gap is the one its own matrix report gives at that point.
    const reportGap = (picks: number[]) => buildMatrixReport(run({ unseen_tasks: [picks] })).settings[0]!.points[0]!.hull_gap_pts.estimate!;
    expect(p0.a.hull_gap_pts).toBeCloseTo(reportGap(allCheap), 10);
    expect(p0.b.hull_gap_pts).toBeCloseTo(reportGap(smart), 10);
    expect(p0.hull_gap_diff_pts.estimate).toBeCloseTo(reportGap(smart) - reportGap(allCheap), 10);
    // Every cluster gains the same 2 of 5 tasks, so the interval is the point itself.
    // Every cluster moved alike: a zero-width interval, so no claim that v2 solved more.
    expect(p0.claims.solved).toBe('v2 solved +40.0 pts against v1, no variation: no claim');
    expect(p0.claims.cost).toMatch(/^v2 no variation: no claim \(savings −360%, an interval of zero width\) against v1/);
    // cw 0.1: the same picks: nothing to tell apart at this point.
    expect(p1.tasks_routed_differently).toBe(0);
    expect(p1.solved_rate_diff_pts).toMatchObject({ estimate: 0, ci_low: 0, ci_high: 0 });
    expect(validatorFor('matrix-compare.schema.json')(withTightness(c))).toBe(true);
  });

  it('says it cannot distinguish the arms when they route every task alike, and prints no table of zeros', () => {
    const picks = { unseen_tasks: [allCheap, smart], new_workspace: [smart, smart] };
    const c = compareMatrixRuns(run(picks), run(picks), ARMS);
    expect(c.identical).toBe(true);
    expect(c.message).toMatch(/^The comparison cannot distinguish v1 and v2 here: judged out of sample \(out of sample by task .*; out of sample by cluster .*\), on all 20 tasks both arms chose the same model for every task at every cost_weight/);
    const text = renderMatrixCompare(withTightness(c), null);
    expect(text).toContain('cannot distinguish');
    expect(text).not.toContain('cost_weight 0:');
  });

  it('says when a setting was judged in sample', () => {
    const c = compareMatrixRuns(run({ in_sample: [allCheap] }), run({ in_sample: [smart] }), ARMS);
    expect(c.settings[0]!.out_of_sample).toBe(false);
    expect(c.message).toContain("in sample (each task's own outcome was in the store that routed it");
  });

  it('refuses two runs that are not paired: another matrix, pool, seed or folds', () => {
    const base = run({ unseen_tasks: [allCheap] });
    expect(() => compareMatrixRuns(base, run({ unseen_tasks: [allCheap] }, { matrix_path: '/y/outcomes.jsonl' }), ARMS)).toThrow(/different matrices/);
    expect(() => compareMatrixRuns(base, run({ unseen_tasks: [allCheap] }, { seed: 1 }), ARMS)).toThrow(/cost weights, folds or seed/);
    expect(() => compareMatrixRuns(base, run({ unseen_tasks: [allCheap] }, { models: ['strong', 'cheap'] }), ARMS)).toThrow(/different pools/);
  });
});

describe('cluster tightness on a matrix\'s clusters (§16.10 test 5)', () => {
  const unit = (i: number, dim = 8) => Float32Array.from({ length: dim }, (_, j) => (j === i ? 1 : 0));
  // Structural features alternate with the task's parity, across clusters (so v1 barely tells clusters
  // apart); the text embedding is one axis per cluster.
  const shape = (t: number) => features({ intent_tags: t % 2 ? ['explain'] : ['debug'], file_extensions: ['.py'] });
  const tasks = (n: number) => Array.from({ length: n }, (_, t) => ({ cluster: `k${t % 3}`, features: shape(t), embedding: unit(t % 3) }));

  it('v2 pulls each cluster together and the others apart where v1 does not, so test 5 passes', () => {
    const t = matrixTightness(tasks(9), { providerId: 'test:axes', alpha: 0.6, perCluster: 3 });
    // Blend: α·cos + (1−α)·structural, with cos 1 within a cluster and 0 across.
    expect(t.v2.intra).toBeCloseTo(0.6 + 0.4 * t.v1.intra!, 12);
    expect(t.v2.inter).toBeCloseTo(0.4 * t.v1.inter!, 12);
    expect(t.v1.intra! - t.v1.inter!).toBeLessThan(0.1);
    expect(t.v1.pairs_intra).toBe(9);
    expect(t.v1.pairs_inter).toBe(27);
    expect(t.verdict).toBe('pass');
    expect(t.tasks_sampled).toBe(9);
  });

  it('fails test 5 when the embeddings do not separate the clusters, and is not applicable with one cluster', () => {
    const same = tasks(9).map((x) => ({ ...x, embedding: unit(0) }));
    const t = matrixTightness(same, { providerId: 'test:axes', alpha: 0.6, perCluster: 3 });
    expect(t.verdict).toBe('fail');
    expect(t.reason).toContain('inter');
    const one = matrixTightness(tasks(9).map((x) => ({ ...x, cluster: 'k0' })), { providerId: 'test:axes', alpha: 0.6, perCluster: 9 });
    expect(one.verdict).toBe('not_applicable');
  });

  it('samples at most N tasks of each cluster, the same ones for the same seed', () => {
    const clusters = Array.from({ length: 50 }, (_, i) => (i < 40 ? 'big' : 'small'));
    const s = sampleByCluster(clusters, 5, 3);
    expect(s.filter((t) => clusters[t] === 'big')).toHaveLength(5);
    expect(s.filter((t) => clusters[t] === 'small')).toHaveLength(5);
    expect(sampleByCluster(clusters, 5, 3)).toEqual(s);
    expect(sampleByCluster(clusters, 5, 4)).not.toEqual(s);
    expect(() => sampleByCluster(clusters, 0, 3)).toThrow(RangeError);
  });
});
