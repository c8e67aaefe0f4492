// Every stdout rendering fits --width, not only the agent report's: the matrix report (a 24-model matrix
// with long names), a cache stream's per-tier table (with Tier 3 and must-miss classes served) and the cache
// compare table. At any width from 60 to 160 no line is wider.
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareCells, type CacheCompareRow } from '../cache-bench/compare-cache.ts';
import { renderStreamTable } from '../cache-bench/render-stream-table.ts';
import { streamFigures, type QueryRecord } from '../cache-bench/stream-metrics.ts';
import { buildMatrixReport } from '../matrix/matrix-report.ts';
import { outcomeTable } from '../matrix/outcome-table.ts';
import { renderMatrixText } from '../matrix/render-matrix.ts';
import { handProvenance } from '../matrix/test-support/hand-provenance.ts';
import { maxLineWidth } from './fit-table.ts';
import { renderSections, topShares } from './text-sections.ts';

// 24 models with leaderboard-folder ids, each solving a different slice of 48 tasks in 6 clusters.
const MODELS = Array.from({ length: 24 }, (_, m) => ({ id: `2024${String(m).padStart(4, '0')}_agentless_scaffold_with_a_long_model_name_${m}` }));
const TASKS = Array.from({ length: 48 }, (_, t) => ({ id: `t${t}`, cluster: `k${t % 6}` }));
const table = outcomeTable({
  models: MODELS,
  tasks: TASKS,
  cells: TASKS.map((_, t) => MODELS.map((_, m) => ({ score: (t * 7 + m * 3) % 5 < 2 + (m % 3) ? 1 : 0, costUsd: new Decimal(m + 1).times('0.0000013') }))),
});
const picks = (w: number) => TASKS.map((_, t) => (t * (w + 1)) % MODELS.length);
const matrix = buildMatrixReport({
  provenance: handProvenance({ tasks: TASKS.length, points: 3, folds: 5 }),
  table,
  settings: [
    { setting: 'unseen_tasks', picks: [picks(0), picks(1), picks(2)], store: { outcomes_max: 40, fingerprints_max: 20, stores: 5 } },
    { setting: 'online', picks: [picks(3), picks(4), picks(5)], store: { outcomes_max: 40, fingerprints_max: 20, stores: 3 } },
  ],
});
const names = Object.fromEntries(MODELS.map((m, i) => [m.id, `Agentless scaffold + model number ${i} (2024-06-20)`]));

const rec = (o: Partial<QueryRecord>): QueryRecord => ({
  id: 'q', class: 'c', repeat: true, expectMiss: false, servedBy: null, correct: null, explored: false, similarity: null, threshold: null, matchedQuery: null, missReason: null,
  costUsd: '0.0000144', spentUsd: '0.0000144', lookupUs: 10, exactLookupUs: 1, embedUs: 900, searchUs: 40, tier2Consulted: true, ...o,
});
const records = [
  ...Array.from({ length: 30 }, (_, i) => rec({ id: `v${i}`, class: `a-long-must-miss-class-name-${i}`, repeat: false, expectMiss: true, servedBy: i < 6 ? 'semantic' : null, correct: i < 6 ? false : null, spentUsd: i < 6 ? '0' : '0.0000144' })),
  ...Array.from({ length: 40 }, (_, i) => rec({ id: `r${i}`, class: 'base', servedBy: i % 2 ? 'exact' : 'semantic', correct: true, spentUsd: '0' })),
];
const figures = streamFigures(records, 10);
const header = { name: 'cache-adversarial', set: 'adversarial', embedder: 'local:use-lite', delta: 0.01, gate: true, cache: true, warm: 12, calibration: 'cross-fit: asked queries split in 2 folds by a hash of their id', contextual: true };

const compareRow: CacheCompareRow = { stream: 'cache-adversarial-with-a-long-name', queries: 138, cost_off_usd: '0.006642', cost_on_usd: '0.004651', hits: 43, wrong_hits: 0, mean_saving_usd: 1.44e-5, ci95: [-1.08e-5, 1.81e-5], saved_pct: 30 };

describe('every report fits --width', () => {
  it('property: the matrix report, a stream table and the cache compare table, at any width from 60 to 160', () => {
    fc.assert(
      fc.property(fc.integer({ min: 60, max: 160 }), (width) => {
        expect(maxLineWidth(renderMatrixText(matrix, { json: '/tmp/a/deep/path/matrix.json', db: '/tmp/a/deep/path/matrix.db', width, names }))).toBeLessThanOrEqual(width);
        expect(maxLineWidth(renderStreamTable(header, figures, 'text', width))).toBeLessThanOrEqual(width);
        expect(maxLineWidth(renderSections([{ title: 'cache off vs cache on', columns: [{ head: 'stream', drop: 0, wrap: true }, { head: 'x', drop: 0 }], rows: [compareCells(compareRow).slice(0, 2)] }], width))).toBeLessThanOrEqual(width);
      }),
      { numRuns: 40 },
    );
  });

  it('the matrix report shows display names, the oracle mix as its top models and "+N more", and keeps the ids in the JSON', () => {
    const text = renderMatrixText(matrix, { json: null, db: null, width: 100, names });
    expect(text).toContain('Agentless scaffold');
    expect(text).not.toContain('_agentless_scaffold_');
    expect(text).toMatch(/oracle's mix: Agentless scaffold/);
    // A mix of more than three models shows the top three and "+N more".
    expect(topShares([0.1, 0.4, 0.2, 0.05, 0.25].map((share, i) => ({ name: `m${i}`, share })))).toBe('m1 40%, m4 25%, m2 20%, +2 more');
    expect(matrix.models[0]!.model).toBe(MODELS[0]!.id);
    // With no limit every model of the mix is named.
    expect(renderMatrixText(matrix, { json: null, db: null, width: null, names })).not.toMatch(/\+\d+ more/);
  });

  it('prints money written out with one minus sign, and intervals whole', () => {
    const cells = compareCells(compareRow);
    expect(cells.join(' ')).not.toMatch(/e-\d/);
    expect(cells[7]).toBe('+$0.0000144 [\u2212$0.0000108, +$0.0000181]');
    const stream = renderStreamTable(header, figures, 'text', 80);
    expect(stream).not.toMatch(/(^|[\s[(])-\d|\de-\d/m);
    // No line of the folded table ends inside a bracket.
    for (const l of stream.split('\n').filter((x) => x.includes('│'))) expect(l.split('[').length, l).toBe(l.split(']').length);
  });
});
