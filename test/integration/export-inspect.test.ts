import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Decimal } from 'decimal.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { LISTING_FILE } from '../../harness/export/inspect/export-inspect.ts';
import { REDACTED } from '../../harness/export/inspect/inspect-log.ts';
import { inspectErrors, inspectEvalLogValidator } from '../../harness/export/inspect/inspect-schema.ts';
import { bench, tempDir } from '../support/cli.ts';

const ENV = { PATH: process.env.PATH };
type Usage = { input_tokens: number; output_tokens: number; input_tokens_cache_read: number; input_tokens_cache_write: number; total_tokens: number; total_cost: number };
type Log = {
  status: string;
  eval: { run_id: string; model: string; metadata: { pass: string } };
  results: { scores: { name: string }[] };
  stats: { model_usage: Record<string, Usage> };
  samples: { id: string; epoch: number; input: string; messages: { role: string; content: string }[]; events: { event: string }[]; scores: Record<string, { value: number }>; metadata: Record<string, unknown> }[];
  metadata: { cost_usd: string };
};

let dir: string;

/** Runs bench, then exports to a fresh directory; returns the logs by file name. */
async function runAndExport(name: string, runArgs: string[], exportArgs: string[] = []): Promise<{ db: string; logs: Map<string, Log>; raw: Map<string, string>; listing: Record<string, Record<string, unknown>> }> {
  const db = join(dir, `${name}.db`);
  const r = await bench(['run', ...runArgs, '--quiet', '--db-path', db], { env: ENV });
  expect([0, 1], r.stderr).toContain(r.code);
  const out = join(dir, `${name}-logs`);
  const e = await bench(['export', '--format', 'inspect', '--db-path', db, '--out', out, ...exportArgs], { env: ENV });
  expect(e.code, e.stderr).toBe(0);
  const raw = new Map(readdirSync(out).filter((f) => f !== LISTING_FILE).map((f) => [f, readFileSync(join(out, f), 'utf8')]));
  const listing = JSON.parse(readFileSync(join(out, LISTING_FILE), 'utf8')) as Record<string, Record<string, unknown>>;
  return { db, raw, listing, logs: new Map([...raw].map(([f, t]) => [f, JSON.parse(t) as Log])) };
}

/** Token and cost sums of a DB's llm.call_completed rows. */
function traceTotals(db: string): { i: number; o: number; c: number; w: number; cost: Decimal } {
  const conn = new Database(db, { readonly: true });
  const t = conn
    .prepare("SELECT sum(json_extract(payload_json,'$.input_tokens')) i, sum(json_extract(payload_json,'$.output_tokens')) o, sum(json_extract(payload_json,'$.cached_input_tokens')) c, sum(json_extract(payload_json,'$.cache_creation_input_tokens')) w FROM events WHERE type='llm.call_completed'")
    .get() as { i: number; o: number; c: number; w: number };
  const costs = conn.prepare("SELECT json_extract(payload_json,'$.cost_usd') c FROM events WHERE type='llm.call_completed'").all() as { c: string }[];
  conn.close();
  return { ...t, cost: costs.reduce((a, r) => a.plus(new Decimal(r.c)), new Decimal(0)) };
}

function logTotals(logs: Iterable<Log>): { i: number; o: number; c: number; w: number; cost: Decimal } {
  const out = { i: 0, o: 0, c: 0, w: 0, cost: new Decimal(0) };
  for (const log of logs) {
    for (const u of Object.values(log.stats.model_usage)) {
      out.i += u.input_tokens;
      out.o += u.output_tokens;
      out.c += u.input_tokens_cache_read;
      out.w += u.input_tokens_cache_write;
      expect(u.total_tokens).toBe(u.input_tokens + u.output_tokens + u.input_tokens_cache_read + u.input_tokens_cache_write);
    }
    out.cost = out.cost.plus(new Decimal(log.metadata.cost_usd));
  }
  return out;
}

beforeAll(() => {
  dir = tempDir();
});

describe('bench export --format inspect', () => {
  let sim: Awaited<ReturnType<typeof runAndExport>>;
  beforeAll(async () => {
    sim = await runAndExport('sim', ['--workload', 'fix-a-bug-small', '--workload', 'multi-step-with-delegation', '--seed-passes', '2'], ['--include-content']);
  }, 180_000);

  it('writes one log per (run, pass) that validates against the shipped EvalLog schema', () => {
    const validate = inspectEvalLogValidator();
    expect(sim.logs.size).toBe(1);
    for (const [file, log] of sim.logs) {
      const ok = validate(log);
      expect(inspectErrors(validate.errors), file).toEqual([]);
      expect(ok).toBe(true);
      expect(log.status).toBe('success');
      expect(log.eval.metadata.pass).toBe('single');
      // One sample per rep: workloads are samples, reps their epochs.
      expect(log.samples.map((s) => `${s.id}#${s.epoch}`).sort()).toEqual(['fix-a-bug-small#1', 'fix-a-bug-small#2', 'multi-step-with-delegation#1', 'multi-step-with-delegation#2']);
      // The hidden check is the main (first) score, the gated score second.
      expect(log.results.scores.map((s) => s.name)).toEqual(['hidden_check', 'gated_score']);
      for (const s of log.samples) {
        expect(Object.keys(s.scores)).toEqual(['hidden_check', 'gated_score']);
        expect(s.metadata).toMatchObject({ workload: s.id, pass: 'single', rep: s.epoch - 1 });
        expect((s.metadata.routing as unknown[]).length).toBeGreaterThan(0);
        expect(s.events.filter((e) => e.event === 'model').length).toBeGreaterThan(0);
        expect(s.input.length).toBeGreaterThan(10);
        expect(s.messages.some((m) => m.role === 'tool')).toBe(true);
      }
    }
  });

  it("writes listing.json beside the logs, as Inspect's viewer lists a folder: each log's preview by file name, no samples", () => {
    expect(Object.keys(sim.listing).sort()).toEqual([...sim.logs.keys()].sort());
    for (const [file, log] of sim.logs) {
      const entry = sim.listing[file]!;
      // The viewer reads these at the top level (its LogPreview), not under `eval`.
      expect(entry).toMatchObject({ run_id: log.eval.run_id, task: 'metis-bench/single', model: log.eval.model, status: log.status, version: 2 });
      expect(entry.primary_metric).toMatchObject({ name: 'accuracy' });
      expect(typeof entry.completed_at).toBe('string');
      expect(entry).not.toHaveProperty('samples');
    }
  });

  it("carries the trace's token totals and cost", () => {
    const t = traceTotals(sim.db);
    const l = logTotals(sim.logs.values());
    expect({ i: l.i, o: l.o, c: l.c, w: l.w }).toEqual({ i: t.i, o: t.o, c: t.c, w: t.w });
    expect(l.cost.toString()).toBe(t.cost.toString());
  });

  it('refuses to overwrite logs already in --out DIR unless --force, writing none of them', async () => {
    const out = join(dir, 'twice-logs');
    const first = await bench(['export', '--format', 'inspect', '--db-path', sim.db, '--out', out], { env: ENV });
    expect(first.code, first.stderr).toBe(0);
    const [name] = readdirSync(out).filter((f) => f !== LISTING_FILE);
    writeFileSync(join(out, name!), 'kept');
    const again = await bench(['export', '--format', 'inspect', '--db-path', sim.db, '--out', out], { env: ENV });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`${join(out, name!)}: already exists; bench export does not overwrite it: pass --force to replace it`);
    expect(readFileSync(join(out, name!), 'utf8')).toBe('kept');
    const forced = await bench(['export', '--format', 'inspect', '--db-path', sim.db, '--out', out, '--force'], { env: ENV });
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(out, name!), 'utf8')).not.toBe('kept');
  });

  it('leaves content out without --include-content', async () => {
    const out = join(dir, 'redacted-logs');
    const e = await bench(['export', '--format', 'inspect', '--db-path', sim.db, '--out', out], { env: ENV });
    expect(e.code, e.stderr).toBe(0);
    const [file] = readdirSync(out).filter((f) => f !== LISTING_FILE);
    const raw = readFileSync(join(out, file!), 'utf8');
    const log = JSON.parse(raw) as Log;
    expect(inspectEvalLogValidator()(log)).toBe(true);
    const withContent = [...sim.logs.values()][0]!;
    const texts = withContent.samples.flatMap((s) => s.messages.map((m) => m.content)).filter((t) => t.length > 40);
    expect(texts.length).toBeGreaterThan(3);
    for (const t of texts) expect(raw).not.toContain(JSON.stringify(t.slice(0, 40)).slice(1, -1));
    expect(log.samples[0]!.input).toBe(REDACTED);
  });

  it('refuses a log that breaks the schema', () => {
    const validate = inspectEvalLogValidator();
    const good = [...sim.logs.values()][0]!;
    type Loose = { samples: { messages?: unknown; events: { output: { choices: { stop_reason: string }[] } }[] }[]; stats: { model_usage: Record<string, { input_tokens: unknown }> }; status: string };
    const broken: ((l: Loose) => void)[] = [
      (l) => delete l.samples[0]!.messages,
      (l) => (l.samples[0]!.events[0]!.output.choices[0]!.stop_reason = 'end_turn'),
      (l) => (l.stats.model_usage['anthropic/claude-haiku-4-5']!.input_tokens = 'many'),
      (l) => (l.status = 'finished'),
    ];
    for (const breakIt of broken) {
      const copy = structuredClone(good) as unknown as Loose;
      breakIt(copy);
      expect(validate(copy)).toBe(false);
      expect(inspectErrors(validate.errors).length).toBeGreaterThan(0);
    }
  });

  it('a log from an A3 run validates for each pass, with the trace totals', async () => {
    const a3 = await runAndExport('a3', ['--protocol', 'a3', '--workload', 'fix-a-bug-small']);
    const validate = inspectEvalLogValidator();
    const passes = [...a3.logs.values()].map((l) => l.eval.metadata.pass).sort();
    expect(passes).toEqual(expect.arrayContaining(['A', 'B', 'C']));
    for (const [file, log] of a3.logs) {
      expect(validate(log), `${file}: ${inspectErrors(validate.errors).join('; ')}`).toBe(true);
    }
    const byPass = new Map([...a3.logs.values()].map((l) => [l.eval.metadata.pass, l]));
    expect(byPass.get('B')!.eval.model).toBe('anthropic/claude-sonnet-4-6');
    const t = traceTotals(a3.db);
    const l = logTotals(a3.logs.values());
    expect({ i: l.i, o: l.o, c: l.c, w: l.w }).toEqual({ i: t.i, o: t.o, c: t.c, w: t.w });
    expect(l.cost.toString()).toBe(t.cost.toString());
  }, 240_000);

  it('refuses --format inspect without --out, and --endpoint with it, with exit 2', async () => {
    const a = await bench(['export', '--format', 'inspect', '--db-path', sim.db], { env: ENV });
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('--format inspect needs --out DIR');
    const b = await bench(['export', '--format', 'inspect', '--db-path', sim.db, '--out', join(dir, 'x'), '--endpoint', 'http://127.0.0.1:1/v1/traces'], { env: ENV });
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('apply to --format otlp only');
  });
});
