import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { afterEach, describe, expect, it } from 'vitest';
import { validatorFor } from '../../runtime/core/schemas.ts';
import type { MatrixReport } from '../../schemas/types/matrix-report.ts';
import { buildMatrixReport, judgedPoint, ptsText, type MatrixRunData } from './matrix-report.ts';
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

function data(picks: number[][]): MatrixRunData {
  return {
    provenance: handProvenance({ tasks: 16, points: picks.length, folds: 5 }),
    table,
    settings: [{ setting: 'unseen_tasks', picks, store: { outcomes_max: 4, fingerprints_max: 2, stores: 5 } }],
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
    expect(r.headline).toMatch(/^On 16 tasks, out of sample by task \(unseen tasks, known clusters\), the router solved 50% \[50, 50\] at \$0\.0010 a task, 0\.0 pts level with the best fixed mix/);
    expect(r.headline).toMatch(/The router does not beat the best fixed mix at any cost here .*: the best fixed choice is strong at \$0\.01 a task\.$/);
  });

  it('a router that never left the cheap model: APGR reads "(no variation)", never [0.500, 0.500], and says it depends on the sweep', () => {
    const cheap = rows.map(() => 0);
    const r = buildMatrixReport(data([cheap, cheap, cheap]));
    expect(r.settings[0]!.apgr).toMatchObject({ ci_low: r.settings[0]!.apgr.ci_high });
    for (const text of [renderMatrixText(r), renderMatrixMarkdown(r)]) {
      expect(text).toMatch(/APGR \d\.\d{3} \(no variation\) \(over the cost_weights swept/);
      expect(text).not.toMatch(/APGR [\d.]+ \[/);
    }
  });

  it('a router that copies the oracle is 18.75 pts above the hull, but every cluster alike gives a zero-width interval: no claim that it beats the hull', () => {
    const r = buildMatrixReport(data([oracle]));
    const p = r.settings[0]!.points[0]!;
    expect(p.oracle_capture.estimate).toBeCloseTo(1, 12);
    // Oracle at $0.00325: the hull there is 0.5 + 0.25 · 0.25 = 0.5625, the oracle solves 0.75.
    expect(p.hull_gap_pts.estimate).toBeCloseTo(18.75, 9);
    // The four clusters are copies of one another, so the interval is [18.75, 18.75]: no variation, no claim.
    expect(p.hull_gap_pts.ci_low).toBe(p.hull_gap_pts.ci_high);
    expect(r.verdict).toEqual({ beats_hull: false, setting: 'unseen_tasks', cost_weight: 0 });
    expect(r.headline).toContain('18.8 pts above the best fixed mix');
    expect(r.headline).toContain('does not beat');
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

  it('judges a setting by its best point whose interval excludes 0, else by its largest gap', () => {
    const pt = (est: number, lo: number) => ({ hull_gap_pts: { estimate: est, ci_low: lo, ci_high: est + 1, clusters: 4 } }) as never;
    expect(judgedPoint([pt(3, -1), pt(1, 0.2), pt(2, 0.5)])).toEqual({ index: 2, beats: true });
    expect(judgedPoint([pt(3, -1), pt(1, -0.2)])).toEqual({ index: 0, beats: false });
    expect(judgedPoint([])).toBeNull();
    expect(ptsText({ estimate: -2, ci_low: -5, ci_high: 1, clusters: 3 }, 0)).toBe('\u22122 pts [\u22125, +1]');
  });
});
