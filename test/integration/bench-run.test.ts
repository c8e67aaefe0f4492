import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { Decimal } from 'decimal.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { validatorFor } from '../../runtime/core/schemas.ts';
import type { BenchReport } from '../../schemas/types/report.ts';
import { bench, REPO_ROOT, tempDir, type CliRun } from '../support/cli.ts';

const ENV = { PATH: process.env.PATH };

async function run(extra: string[] = []): Promise<{ r: CliRun; report: BenchReport; db: string }> {
  const db = join(tempDir(), 'run.db');
  const r = await bench(['run', '--include-marginal', '--db-path', db, ...extra], { env: ENV });
  const json = db.replace(/\.db$/, '.json');
  expect(existsSync(json), r.stderr).toBe(true);
  return { r, report: JSON.parse(readFileSync(json, 'utf8')) as BenchReport, db };
}

/** The numbers of a report, without what legitimately differs run to run (ids, paths, clocks). */
function numbers(report: BenchReport) {
  return {
    workloads: report.workloads.map((w) => ({
      ...w,
      // The check's output tail is diagnostics (it has test timings), not a number.
      reps: w.reps.map(({ session_ids: _s, started_at_us: _a, ended_at_us: _b, check, ...rest }) => ({ ...rest, check: check && { ...check, output_tail: '' } })),
    })),
    aggregate: report.aggregate,
    routing: report.routing,
    cache: report.cache,
    assertions_failed: report.assertions_failed,
    exit_code: report.exit_code,
  };
}

describe('bench run on the simulated provider', () => {
  let first: Awaited<ReturnType<typeof run>>;
  beforeAll(async () => {
    first = await run();
  });

  it('prints the banner, provenance, the per-workload table and the aggregate, and exits 0 or 1', () => {
    const { r, report } = first;
    expect([0, 1]).toContain(r.code);
    expect(r.code).toBe(report.exit_code);
    expect(r.stdout).toMatch(/^\*\*\* SIMULATED PROVIDER/);
    for (const s of ['=== Metis benchmark suite ===', 'actual_model:     anthropic:claude-haiku-4-5', 'baseline_model:   anthropic:claude-sonnet-4-6', 'pricing_version:', 'Per-workload:', 'Aggregate:', 'price effect % (same tokens re-priced):'])
      expect(r.stdout).toContain(s);
    for (const w of ['fix-a-bug-small', 'write-a-doc-from-notes', 'multi-turn-refactor']) expect(r.stdout).toContain(w);
  });

  it('writes a JSON report that validates against schemas/report.schema.json and says it is simulated', () => {
    const { report, db } = first;
    const validate = validatorFor('report.schema.json');
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    expect(report.provenance.actual_provider).toBe('sim');
    expect(report.provenance.requested_provider).toBe('auto');
    expect(report.provenance.node_version).toBe(process.version);
    expect(report.provenance.db_path).toBe(db);
    expect(report.banner).toMatch(/SIMULATED PROVIDER/);
    expect(report.status).toBe('complete');
  });

  it('leaves its DB, its report and its pattern store in the folder, and nothing beside them (no -wal or -shm)', () => {
    expect(readdirSync(dirname(first.db)).sort()).toEqual(['run.db', 'run.json', 'run.patterns.db']);
  });

  it('aggregate equals the exact Decimal sum of the per-workload values (benchmark.md §10.1 test 5)', () => {
    const { report } = first;
    for (const key of ['actual_repriced_usd', 'baseline_repriced_usd', 'savings_usd'] as const) {
      const sum = report.workloads.reduce((a, w) => a.plus(w.savings[key]), new Decimal(0));
      expect(sum.equals(report.aggregate.savings[key])).toBe(true);
    }
    expect(report.workloads.reduce((a, w) => a + w.savings.rows_total, 0)).toBe(report.aggregate.savings.rows_total);
  });

  it('an independent recomputation of savings from the trace DB rows equals the report to the last digit', () => {
    const { report, db } = first;
    const prices = JSON.parse(readFileSync(join(REPO_ROOT, 'runtime/data/prices.json'), 'utf8')) as { models: Record<string, Record<string, string>> };
    const conn = new Database(db, { readonly: true });
    const rows = conn.prepare("SELECT payload_json FROM events WHERE type = 'llm.call_completed'").all() as { payload_json: string }[];
    conn.close();
    expect(rows.length).toBe(report.aggregate.savings.rows_total);
    const price = (model: string, u: Record<string, number>) => {
      const p = prices.models[model]!;
      return new Decimal(u.input_tokens!).times(p.input!)
        .plus(new Decimal(u.output_tokens!).times(p.output!))
        .plus(new Decimal(u.cached_input_tokens!).times(p.cache_read!))
        .plus(new Decimal(u.cache_creation_input_tokens!).times(p.cache_write!))
        .div(1_000_000);
    };
    let actual = new Decimal(0);
    let baseline = new Decimal(0);
    let billed = new Decimal(0);
    for (const { payload_json } of rows) {
      const p = JSON.parse(payload_json) as Record<string, number> & { model: string; cost_usd: string };
      actual = actual.plus(price(p.model, p));
      baseline = baseline.plus(price('anthropic:claude-sonnet-4-6', p));
      billed = billed.plus(p.cost_usd);
    }
    expect(actual.toString()).toBe(new Decimal(report.aggregate.savings.actual_repriced_usd).toString());
    expect(baseline.toString()).toBe(new Decimal(report.aggregate.savings.baseline_repriced_usd).toString());
    expect(baseline.minus(actual).toString()).toBe(new Decimal(report.aggregate.savings.savings_usd).toString());
    // The cost recorded at call time is the same money as the re-priced figure (same price table).
    expect(billed.toString()).toBe(actual.toString());
  });

  it('every turn has exactly one route.decided and an unbroken causal chain back to turn.started (catalog §9.1 test 2)', () => {
    const conn = new Database(first.db, { readonly: true });
    const events = conn.prepare('SELECT id, type, turn_id, parent_event_id FROM events ORDER BY id').all() as { id: string; type: string; turn_id: string | null; parent_event_id: string | null }[];
    conn.close();
    const byId = new Map(events.map((e) => [e.id, e]));
    const turns = events.filter((e) => e.type === 'turn.started');
    expect(turns.length).toBe(first.report.workloads.reduce((a, w) => a + w.turns, 0));
    for (const t of turns) expect(events.filter((e) => e.type === 'route.decided' && e.turn_id === t.turn_id)).toHaveLength(1);
    // Walk back from the last LLM call of each turn and from turn.completed.
    for (const t of turns) {
      const own = events.filter((e) => e.turn_id === t.turn_id);
      const starts = [own.filter((e) => e.type === 'llm.call_completed').at(-1)!, own.find((e) => e.type === 'turn.completed')!];
      for (const start of starts) {
        let cur = start;
        const seen: string[] = [];
        while (cur.parent_event_id) {
          seen.push(cur.type);
          const parent = byId.get(cur.parent_event_id);
          expect(parent, `missing parent of ${cur.type}`).toBeDefined();
          cur = parent!;
        }
        expect(cur.id).toBe(t.id);
        expect(seen.length).toBeGreaterThan(0);
      }
    }
  });

  it('two runs with the same flags give identical report numbers', async () => {
    const second = await run();
    expect(numbers(second.report)).toEqual(numbers(first.report));
  });

  it('a different seed changes the simulated plans but not the shape', async () => {
    const other = await run(['--seed', '7', '--seed-passes', '2']);
    expect(other.report.workloads.every((w) => w.reps.length === 2)).toBe(true);
    expect(other.report.provenance.seed_passes).toBe(2);
  });

  it('analyze --skip-execute on the DB reproduces every number of the report', async () => {
    const json = join(tempDir(), 'again.json');
    const r = await bench(['analyze', '--skip-execute', '--db-path', first.db, '--json', json]);
    expect(r.code).toBe(first.report.exit_code);
    const again = JSON.parse(readFileSync(json, 'utf8')) as BenchReport;
    expect(again).toEqual(first.report);
  });
});

describe('bench run refuses bad input with exit 2 and a message that names the problem', () => {
  it('an existing --db-path', async () => {
    const db = join(tempDir(), 'exists.db');
    writeFileSync(db, '');
    const r = await bench(['run', '--include-marginal', '--db-path', db], { env: ENV });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${db}: the trace DB already exists`);
  });

  it('no high-signal workload and no --include-marginal', async () => {
    const onlyMarginal = tempDir();
    cpSync(join(REPO_ROOT, 'workloads', 'fix-a-bug-small'), join(onlyMarginal, 'fix-a-bug-small'), { recursive: true });
    const r = await bench(['run', '--workloads-dir', onlyMarginal, '--db-path', join(tempDir(), 'x.db')], { env: ENV });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--include-marginal');
  });

  it('an unknown model, a real provider that is not available, a bad flag value', async () => {
    const db = join(tempDir(), 'x.db');
    const unknown = await bench(['run', '--include-marginal', '--model', 'gpt-9', '--db-path', db], { env: ENV });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--model: unknown model 'gpt-9'/);
    const real = await bench(['run', '--include-marginal', '--provider', 'anthropic', '--db-path', db], { env: ENV });
    expect(real.code).toBe(2);
    expect(real.stderr).toContain('--provider anthropic needs ANTHROPIC_API_KEY in the environment; it is not set');
    const bad = await bench(['run', '--seed-passes', '0', '--db-path', db], { env: ENV });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--seed-passes takes a whole number from 1 to 1000/);
    expect(existsSync(db)).toBe(false);
  });

});
