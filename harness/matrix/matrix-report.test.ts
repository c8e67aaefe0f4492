import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { afterEach, describe, expect, it } from 'vitest';
import { validatorFor } from '../../runtime/core/schemas.ts';
import type { MatrixReport } from '../../schemas/types/matrix-report.ts';
import { buildMatrixReport, ptsText, type MatrixRunData } from './matrix-report.ts';
import { isMatrixRunDb, readMatrixRun, writeMatrixRun } from './matrix-run-db.ts';
import { renderMatrixHtml, renderMatrixMarkdown, renderMatrixText } from './render-matrix.ts';
import { outcomeTable } from './outcome-table.ts';
import { handProvenance } from './test-support/hand-provenance.ts';

// Two models on four clusters of four tasks: cheap solves the first two of each cluster, strong three.
const rows = Array.from({ length: 16 }, (_, i) => ({ cluster: `k${i % 4}`, cheap: Math.floor(i / 4) < 2 ? 1 : 0, strong: Math.floor(i / 4) < 3 ? 1 : 0 }));
const table = outcomeTable({
  models: [{ id: 'cheap' }, { id: 'strong' }],
  tasks: rows.map((r, i) => ({ id: `t${i}`, cluster: r.cluster })),
  cells: rows.map((r) => [
    { score: r.cheap, costUsd: new Decimal('0.001') },
    { score: r.strong, costUsd: new Decimal('0.010') },
  ]),
});

// Two outer folds (odd and even tasks); the target declares cost_weight 0 (the first swept point).
const folds = rows.map((_, i) => i % 2);

function data(picks: number[][]): MatrixRunData {
  return {
    provenance: handProvenance({ tasks: 16, points: picks.length, folds: 2 }, { target: 'cost_weight=0' }),
    table,
    settings: [{ setting: 'unseen_tasks', picks, store: { outcomes_max: 4, fingerprints_max: 2, stores: 5 }, folds }],
    chars: rows.map((_, i) => 10 + i),
  };
}

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('matrix report', () => {
  // Oracle: strong exactly on the tasks only strong solves (i 8..11), cheap elsewhere.
  const oracle = rows.map((_, i) => (i >= 8 && i < 12 ? 1 : 0));

  it('is valid against its schema, with exact baselines, and names the best fixed choice when the router does not beat the hull', () => {
    const r = buildMatrixReport(data([rows.map(() => 0), rows.map(() => 1)]));
    expect(validatorFor<MatrixReport>('matrix-report.schema.json')(r)).toBe(true);
    expect(r.models.map((m) => [m.model, m.cost_per_task_usd, m.solved_rate.estimate])).toEqual([
      ['cheap', '0.001', 0.5],
      ['strong', '0.01', 0.75],
    ]);
    expect(r.oracle.solved_rate.estimate).toBe(0.75);
    expect(r.oracle.cost_per_task_usd).toBe('0.00325');
    expect(r.best_single.model).toBe('strong');
    expect(r.verdict.beats_hull).toBe(false);
    expect(r.settings[0]!.chosen!.chosen_by).toBe('declared');
    expect(r.headline).toMatch(/^On 16 tasks, out of sample by task \(unseen tasks, known clusters\), the router solved 50% \(no variation\) at \$0\.0010 a task, 0\.0 pts against the best fixed mix at that cost, no variation: no claim .*declared cost_weight 0\)/);
    // Always the cheap model: the best fixed model at cost_weight 0 (strong) is 25 pts better, and the verdict names it.
    expect(r.settings[0]!.baselines!.best_fixed.router_minus_baseline_pts.estimate).toBeCloseTo(-25, 9);
    expect(r.verdict.predicts_prompts).toBe(false);
    expect(r.headline).toContain(r.verdict.statement);
  });

  it('a router that copies the oracle is 18.75 pts above the hull, but every cluster alike gives a zero-width interval: no claim that it beats the hull', () => {
    const r = buildMatrixReport(data([oracle]));
    const p = r.settings[0]!.points[0]!;
    expect(p.oracle_capture.estimate).toBeCloseTo(1, 12);
    // Oracle at $0.00325: the hull there is 0.5 + 0.25 · 0.25 = 0.5625, the oracle solves 0.75.
    expect(p.hull_gap_pts.estimate).toBeCloseTo(18.75, 9);
    // The four clusters are copies of one another, so the interval is [18.75, 18.75]: no variation, no claim.
    expect(p.hull_gap_pts.ci_low).toBe(p.hull_gap_pts.ci_high);
    expect(r.verdict).toMatchObject({ beats_hull: false, setting: 'unseen_tasks', cost_weight: 0, chosen_by: 'declared', routing_adds_nothing: false });
    expect(r.settings[0]!.apgr_call_share!.estimate).toBeCloseTo(1 - 0.25 / 2, 12);
    // The words never say more than the interval: a zero-width gap is named as no claim, not "above".
    expect(r.headline).toContain('+18.8 pts against the best fixed mix at that cost, no variation: no claim (hull gap +18.8 pts (no variation)');
    expect(r.headline).not.toMatch(/\[(\S+), \1\]/);
    expect(r.verdict.statement).toContain('router minus it +25.0 pts (no variation)): no variation: no claim either way.');
    for (const text of [renderMatrixText(r), renderMatrixMarkdown(r), renderMatrixHtml(r)]) expect(text).toContain(r.headline.slice(0, 40));
    expect(renderMatrixHtml(r)).toContain('<svg');
  });

  it('the DB holds everything: analyze rebuilds the same report from it alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'matrix-report-'));
    dirs.push(dir);
    const path = join(dir, 'run.db');
    const d = data([oracle, rows.map(() => 0)]);
    writeMatrixRun(path, d);
    expect(isMatrixRunDb(path)).toBe(true);
    expect(buildMatrixReport(readMatrixRun(path))).toEqual(buildMatrixReport(d));
    expect(() => writeMatrixRun(path, d)).toThrow(/already exists/);
    expect(() => readMatrixRun(path, 'nope')).toThrow(/no run 'nope'; runs: 01TEST/);
  });

  it('prints signed point differences', () => {
    expect(ptsText({ estimate: -2, ci_low: -5, ci_high: 1, clusters: 3 }, 0)).toBe('\u22122 pts [\u22125, +1]');
  });
});
