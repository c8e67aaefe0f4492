import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { createPriceTable } from '../../runtime/pricing/index.ts';
import { validatorFor } from '../../runtime/core/schemas.ts';
import { tempDir } from '../../test/support/temp.ts';
import { SetupError } from '../errors.ts';
import { loadOutcomeMatrix, loadOutcomeMatrixFile } from './outcome-matrix.ts';

const PRICES = createPriceTable({
  version: 't1',
  currency: 'USD',
  unit: 'per_million_tokens',
  models: { 'test:cheap': { input: '0.5', output: '1.5', cache_read: '0.5', cache_write: '0.5' } },
});

const HEADER = JSON.stringify({ outcome_matrix: 1, models: [{ id: 'test:cheap', price_source: 'price-table' }, { id: 'strong-agent', price_source: 'recorded', label: 'Strong' }] });
const task = (id: string, cells: unknown[], extra: Record<string, unknown> = {}) => JSON.stringify({ id, cluster: 'c1', text: `task ${id}`, cells, ...extra });
const GOOD_CELLS = [{ score: 1, in: 1000, out: 10 }, { score: 0, usd: '0.25', calls: 3, ms: 1200 }];

function file(lines: string[]): string {
  const p = join(tempDir(), 'outcomes.jsonl');
  writeFileSync(p, lines.join('\n') + '\n');
  return p;
}

async function failure(lines: string[]): Promise<{ path: string; message: string }> {
  const path = file(lines);
  const err = await loadOutcomeMatrixFile(path, { priceTable: PRICES }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SetupError);
  return { path, message: (err as Error).message };
}

describe('loadOutcomeMatrixFile', () => {
  it('loads tasks and cells in header order, pricing tokens from the price table and reading recorded USD exactly', async () => {
    const m = await loadOutcomeMatrixFile(file([HEADER, task('a', GOOD_CELLS, { meta: { n: 1 } }), task('b', [{ score: 0.5, in: 0, out: 0 }, { score: 1, usd: 0.1 }])]), { priceTable: PRICES });
    expect(m.models.map((x) => x.id)).toEqual(['test:cheap', 'strong-agent']);
    expect(m.models[1]!.label).toBe('Strong');
    expect(m.tasks).toEqual([
      { id: 'a', cluster: 'c1', text: 'task a', meta: { n: 1 } },
      { id: 'b', cluster: 'c1', text: 'task b' },
    ]);
    // 1000 × 0.5/M + 10 × 1.5/M = 0.000515 exactly.
    expect(m.cells[0]![0]!.costUsd.equals(new Decimal('0.000515'))).toBe(true);
    expect(m.cells[0]![1]).toEqual({ score: 0, costUsd: new Decimal('0.25'), calls: 3, latencyMs: 1200 });
    expect(m.cells[1]![1]!.costUsd.toString()).toBe('0.1');
    expect(m.pricingVersion).toBe('t1');
  });

  it.each([
    ['a missing cell', [HEADER, task('a', [GOOD_CELLS[0]])], 2, 'missing cell for model strong-agent', 'one cell per header model'],
    ['an extra cell (a model the header does not declare)', [HEADER, task('a', [...GOOD_CELLS, GOOD_CELLS[1]])], 2, '3 cells but the header declares 2 models', 'declare the model in the header'],
    ['an unknown price-table model', [JSON.stringify({ outcome_matrix: 1, models: [{ id: 'test:nope', price_source: 'price-table' }] }), task('a', [GOOD_CELLS[0]])], 1, "unknown model 'test:nope'", 'add the model to runtime/data/prices.json'],
    ['a model declared twice', [JSON.stringify({ outcome_matrix: 1, models: [{ id: 'x', price_source: 'recorded' }, { id: 'x', price_source: 'recorded' }] })], 1, "model 'x' is declared twice", 'declare each model once'],
    ['a duplicate task id', [HEADER, task('a', GOOD_CELLS), task('b', GOOD_CELLS), task('a', GOOD_CELLS)], 4, "duplicate task id 'a' (first on line 2)", 'unique id'],
    ['a score above 1', [HEADER, task('a', [{ score: 1.5, in: 1, out: 1 }, GOOD_CELLS[1]])], 2, 'cell 1 (model test:cheap): score must be a number in [0, 1]', 'from 0 to 1'],
    ['a negative score', [HEADER, task('a', [GOOD_CELLS[0], { score: -0.1, usd: '1' }])], 2, 'cell 2 (model strong-agent): score', 'from 0 to 1'],
    ['a negative cost', [HEADER, task('a', [GOOD_CELLS[0], { score: 1, usd: -2 }])], 2, 'usd must be a finite non-negative amount', 'non-negative decimal'],
    ['a cost string that is not a decimal', [HEADER, task('a', [GOOD_CELLS[0], { score: 1, usd: '1e3' }])], 2, 'usd must be a finite non-negative amount', 'non-negative decimal'],
    // 1e999 parses to Infinity; the schema's number type refuses non-finite values.
    ['a non-finite cost', [HEADER, task('a', [GOOD_CELLS[0]]).replace(']}', ',{"score":1,"usd":1e999}]}')], 2, 'usd must be a finite non-negative amount', 'non-negative decimal'],
    ['negative tokens', [HEADER, task('a', [{ score: 1, in: -1, out: 1 }, GOOD_CELLS[1]])], 2, 'in must be a non-negative integer', 'whole number'],
    ['a recorded model without usd', [HEADER, task('a', [GOOD_CELLS[0], { score: 1 }])], 2, "has no 'usd'", 'recorded cost as usd'],
    ['a price-table model without tokens', [HEADER, task('a', [{ score: 1, in: 3 }, GOOD_CELLS[1]])], 2, "has no 'out' tokens", 'add in and out token counts'],
    ['bad JSON', [HEADER, task('a', GOOD_CELLS), '{"id": "b", "cluster": '], 3, 'bad JSON', 'one complete JSON object per line'],
    ['an unknown key', [HEADER, task('a', [{ ...GOOD_CELLS[0], solved: true }, GOOD_CELLS[1]])], 2, "unknown key 'solved' in cell 1", 'check its spelling'],
    ['a task without a cluster', [HEADER, JSON.stringify({ id: 'a', text: 't', cells: GOOD_CELLS })], 2, "task 'a': the line has no 'cluster'", "add 'cluster'"],
    ['no header', [task('a', GOOD_CELLS)], 1, 'not a matrix header', 'line 1 must be'],
    ['no tasks', [HEADER], 2, 'no task lines after the header', 'one JSON object per task'],
  ])('refuses %s, naming the file, the line and the fix', async (_what, lines, line, problem, fix) => {
    const { path, message } = await failure(lines as string[]);
    expect(message).toContain(`${path}:${line}: `);
    expect(message).toContain(problem);
    expect(message).toContain(fix);
  });

  it('refuses bytes that are not UTF-8, naming the line, and reads an escaped U+FFFD as text', async () => {
    const path = join(tempDir(), 'outcomes.jsonl');
    writeFileSync(path, Buffer.concat([Buffer.from(`${HEADER}\n${task('a', GOOD_CELLS)}\n{"id":"b","cluster":"c1","text":"caf`), Buffer.from([0xe9]), Buffer.from(`","cells":${JSON.stringify(GOOD_CELLS)}}\n`)]));
    await expect(loadOutcomeMatrixFile(path, { priceTable: PRICES })).rejects.toThrow(`${path}:3: not valid UTF-8 at column 37`);
    const ok = file([HEADER, task('a', GOOD_CELLS).replace('task a', 'x\\ufffdy')]);
    expect((await loadOutcomeMatrixFile(ok, { priceTable: PRICES })).tasks[0]!.text).toBe('x\uFFFDy');
  });

  it('refuses a missing file', async () => {
    await expect(loadOutcomeMatrixFile(join(tempDir(), 'none.jsonl'))).rejects.toThrow(/outcomes file not found/);
  });

  it('every line the loader accepts validates against schemas/outcome-matrix.schema.json (schema and loader agree)', async () => {
    const lines = [HEADER, task('a', GOOD_CELLS, { meta: { k: 'v' } }), task('b', [{ score: 0, in: 5, out: 0 }, { score: 1, usd: 2 }])];
    await loadOutcomeMatrixFile(file(lines), { priceTable: PRICES });
    const validate = validatorFor('outcome-matrix.schema.json');
    for (const l of lines) expect(validate(JSON.parse(l))).toBe(true);
    expect(validate(JSON.parse(task('c', [{ score: 2, in: 1, out: 1 }])))).toBe(false);
  });
});

describe('loadOutcomeMatrix (a workload directory)', () => {
  function workload(yaml: string, outcomes: string[] | null): string {
    const dir = join(tempDir(), 'tiny-matrix');
    mkdirSync(dir);
    writeFileSync(join(dir, 'workload.yaml'), yaml);
    if (outcomes) writeFileSync(join(dir, 'outcomes.jsonl'), outcomes.join('\n'));
    return dir;
  }
  const YAML = 'kind: matrix\nname: tiny-matrix\ndescription: two tasks\nsuite_version: 1\noutcomes: outcomes.jsonl\nsource:\n  name: hand-made\n  licence: CC0-1.0\n  credit: the tests\n';

  it('carries the name and source from workload.yaml', async () => {
    const m = await loadOutcomeMatrix(workload(YAML, [HEADER, task('a', GOOD_CELLS)]), { priceTable: PRICES });
    expect(m.name).toBe('tiny-matrix');
    expect(m.source).toEqual({ name: 'hand-made', licence: 'CC0-1.0', credit: 'the tests' });
    expect(m.tasks).toHaveLength(1);
  });

  it('refuses a workload.yaml without its licence, naming the line', async () => {
    const dir = workload(YAML.replace('  licence: CC0-1.0\n', ''), [HEADER, task('a', GOOD_CELLS)]);
    await expect(loadOutcomeMatrix(dir)).rejects.toThrow(/workload\.yaml:\d+:\d+: .*licence/);
  });

  it('refuses a workload.yaml whose outcomes file is missing', async () => {
    await expect(loadOutcomeMatrix(workload(YAML, null))).rejects.toThrow(/outcomes file .*outcomes\.jsonl does not exist/);
  });
});
