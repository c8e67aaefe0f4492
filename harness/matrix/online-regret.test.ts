import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { validatorFor } from '../../runtime/core/schemas.ts';
import type { MatrixReport } from '../../schemas/types/matrix-report.ts';
import { buildMatrixReport } from './matrix-report.ts';
import { cumulativeRegret, regretAfter } from './online-regret.ts';
import { outcomeTable } from './outcome-table.ts';
import { regretSummary, renderRegretText } from './regret-chart.ts';
import { renderMatrixHtml, renderMatrixMarkdown, renderMatrixText } from './render-matrix.ts';
import { handProvenance } from './test-support/hand-provenance.ts';

// Ten tasks on two clusters: cheap solves the even ones, strong every one; strong costs ten times more.
const table = outcomeTable({
  models: [{ id: 'cheap' }, { id: 'strong' }],
  tasks: Array.from({ length: 10 }, (_, i) => ({ id: `t${i}`, cluster: `k${i % 2}` })),
  cells: Array.from({ length: 10 }, (_, i) => [
    { score: i % 2 === 0 ? 1 : 0, costUsd: new Decimal('0.001') },
    { score: 1, costUsd: new Decimal('0.01') },
  ]),
});
const order = [9, 8, 7, 6, 5, 4, 3, 2, 1, 0];

describe('cumulative regret against a fixed model', () => {
  it('sums, in arrival order, what the fixed model solved and the router did not, and the extra cost', () => {
    // Always cheap against strong: each odd task is one task of regret, each task saves $0.009.
    const s = cumulativeRegret(table, order, table.score.map(() => 0), 1);
    expect(s.map((p) => p.task)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(s.map((p) => p.regret_tasks)).toEqual([1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
    expect(s[9]!.extra_cost_usd).toBe('-0.09');
    // The fixed model against itself: no regret.
    expect(cumulativeRegret(table, order, table.score.map(() => 1), 1).every((p) => p.regret_tasks === 0 && p.extra_cost_usd === '0')).toBe(true);
  });

  it('samples at most maxPoints positions, the last kept', () => {
    const s = cumulativeRegret(table, order, table.score.map(() => 0), 1, 4);
    expect(s.map((p) => p.task)).toEqual([4, 8, 10]);
    // From the last sample at or before task 6 (task 4, regret 2) to the end (task 10, regret 5).
    expect(regretAfter(s, 6)).toBeCloseTo((100 * (5 - 2)) / 6, 12);
  });

  it('draws within 80 columns, rising where the router loses', () => {
    const lines = renderRegretText({ best_fixed_model: 'strong', cost_weight: 0, tasks: 10, window: 2, series: cumulativeRegret(table, order, table.score.map(() => 0), 1) });
    for (const l of lines.slice(1)) expect(l.length).toBeLessThanOrEqual(80);
    expect(lines[0]).toMatch(/^Cumulative regret against strong .*\+5\.0 tasks over 10, extra cost −\$0\.0900; after the first 2 .* about \+50\.0 pts a task\.$/);
    // Top row (+5) holds the end of the curve, the row of +1 its first task, the bottom row is the zero rule.
    const plot = lines.slice(2, 9);
    expect(plot[0]!.endsWith('*')).toBe(true);
    expect(plot[5]).toMatch(/\|\*/);
    expect(plot[6]).toMatch(/^ {5}0\.0 \|-/);
  });
});

describe('matrix report, online setting', () => {
  it('carries the regret series at the chosen knob, valid against the schema, in text, Markdown and HTML', () => {
    const picks = [table.score.map(() => 0), table.score.map(() => 1)];
    const r = buildMatrixReport({
      provenance: handProvenance({ tasks: 10, points: 2, folds: 2 }, { target: 'cost_weight=0' }),
      table,
      settings: [{ setting: 'online', picks, store: { outcomes_max: 10, fingerprints_max: 2, stores: 2 }, order }],
    });
    expect(validatorFor<MatrixReport>('matrix-report.schema.json')(r)).toBe(true);
    const g = r.settings[0]!.regret!;
    expect(g.best_fixed_model).toBe('strong');
    expect(g.window).toBe(2);
    // The declared knob cost_weight 0 is the first swept point: always cheap, so every odd task is regret.
    expect(g.cost_weight).toBe(0);
    expect(g.series[g.series.length - 1]).toEqual({ task: 10, regret_tasks: 5, extra_cost_usd: '-0.09' });
    expect(renderMatrixText(r, { json: null, db: null, width: 80 })).toContain('Cumulative regret against strong');
    expect(renderMatrixMarkdown(r)).toContain('regret (tasks)');
    expect(renderMatrixHtml(r)).toContain('cumulative regret against the best fixed choice');
  });
});

describe('the regret summary and the fallback', () => {
  const base = { best_fixed_model: 'strong', cost_weight: 0, tasks: 10, window: 2, series: [{ task: 10, regret_tasks: 3, extra_cost_usd: '-1' }] };
  it('says the curve is what the router would have lost when the window fell back to a fixed model', () => {
    // The GSM8K online report said "+19.9 pts a task" under a headline that routes GPT-4 after the window.
    expect(regretSummary({ ...base, fallback_model: 'strong' })).toMatch(/after it strong is routed instead \(no regret\): the curve is what the router would have lost/);
  });
  it('says nothing of a fallback when the router routed (or the report predates the field)', () => {
    expect(regretSummary({ ...base, fallback_model: null })).not.toMatch(/instead/);
    expect(regretSummary(base)).not.toMatch(/instead/);
  });
});
