// `--cache on` in the trace: agent requests offer tools, which both cache tiers refuse, so no shipped
// workload can produce a hit. Here the run path is driven rep by rep (runWorkloadRep with the run's
// cache, the sim provider, the trace store, buildReport) with an empty tool set, so the requests are
// tool-less: rep 1 computes, rep 2 repeats it exactly (Tier 1), rep 3 asks a paraphrase (Tier 2, at a
// fixed prior threshold). Then `analyze --skip-execute` must rebuild the same report from the DB.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSystemClock, isoFromUs } from '../../runtime/core/clock.ts';
import { newId } from '../../runtime/core/ids.ts';
import { createMemoryLogger } from '../../runtime/core/logger.ts';
import { validatorFor } from '../../runtime/core/schemas.ts';
import { createAnalytics } from '../../runtime/analytics/index.ts';
import { createEvaluator, loadRubric } from '../../runtime/evaluator/index.ts';
import { createEventBus } from '../../runtime/events/index.ts';
import { loadModelRegistry } from '../../runtime/models/index.ts';
import { loadPriceTable } from '../../runtime/pricing/index.ts';
import { createRouter, defaultRoutingConfig } from '../../runtime/routing/index.ts';
import { createToolDispatcher } from '../../runtime/tools/index.ts';
import { openTraceStore } from '../../runtime/trace/index.ts';
import { createPaidEmbedder, PAID_EMBEDDER_ID, pricesWithEmbedder } from '../../runtime/cache/test-support/paid-embedder.ts';
import type { PriceTable } from '../../runtime/pricing/index.ts';
import { withRunCache, type RunCacheOptions } from '../../harness/cache-bench/cached-reps.ts';
import { buildReport } from '../../harness/report/build-report.ts';
import { protocolFor } from '../../harness/protocols/protocols.ts';
import { planProvider } from '../../harness/runner/provider-plan.ts';
import { runWorkloadRep } from '../../harness/runner/run-workload.ts';
import { RunStore } from '../../harness/runs/run-store.ts';
import { discoverWorkloads } from '../../harness/workloads/load-workload.ts';
import type { Workload } from '../../harness/workloads/workload.ts';
import type { BenchReport, Provenance } from '../../schemas/types/report.ts';
import { bench, tempDir } from '../support/cli.ts';
import { copyWorkloads, doNothing, rewriteSim } from '../support/workload-variants.ts';

const NAME = 'write-a-doc-from-notes';
const MODEL = 'anthropic:claude-haiku-4-5';
const BASELINE = 'anthropic:claude-sonnet-4-6';
const PROMPT = 'Summarise the decisions recorded in the meeting notes about the Courier webhook redesign.';
const PARAPHRASE = 'Summarise the decisions recorded in the Courier webhook redesign meeting notes.';

interface EventRow {
  id: string;
  session_id: string;
  turn_id: string | null;
  parent_event_id: string | null;
  type: string;
  payload_json: string;
}

/** One rep per prompt of one workload, through one run cache; returns the report and the DB. */
async function runReps(prompts: readonly string[], paid?: { prices: PriceTable; embedder: RunCacheOptions['embedder'] }): Promise<{ report: BenchReport; db: string; sessions: string[][] }> {
  const dir = copyWorkloads([NAME]);
  rewriteSim(dir, NAME, doNothing);
  const loaded = discoverWorkloads(dir).find((w) => w.spec.name === NAME)!;
  const { check: _check, ...evaluate } = loaded.spec.evaluate ?? {};
  const withPrompt = (prompt: string): Workload => ({ ...loaded, spec: { ...loaded.spec, turns: [{ prompt }], expect: {}, evaluate } });
  const clock = createSystemClock();
  const logger = createMemoryLogger();
  const prices = paid?.prices ?? loadPriceTable();
  const registry = loadModelRegistry();
  const db = join(tempDir(), 'cache.db');
  const store = openTraceStore(db, { logger });
  const bus = createEventBus({ mode: 'strict', logger, clock });
  bus.subscribe(store.writer());
  const runs = new RunStore(store.database);
  const runId = newId('run');
  const startedUs = clock.nowUs();
  const providers = planProvider({ requested: 'sim', modelProvider: 'anthropic', env: {}, workloads: [loaded], registry, seed: 0, record: null, replay: null, baseURL: null });
  const provenance = (endedUs: number): Provenance => ({
    run_id: runId, suite_version: 1, metis_commit_sha: 'test', metis_branch: 'test', metis_dirty: false, pricing_version: prices.version,
    actual_model: MODEL, baseline_model: BASELINE, requested_provider: 'sim', actual_provider: providers.actual, node_version: process.version,
    started_at: isoFromUs(startedUs), ended_at: isoFromUs(endedUs), temperature: 0, seed: 0, seed_passes: prompts.length, protocol: 'single',
    fingerprint_version: 'v1', embedding_provider: null, embedding_alpha: null, db_path: db, patterns_db_path: join(tempDir(), 'none.patterns.db'),
    strong_model: null, workloads_dir: dir, shard: null,
  });
  runs.saveRun(runId, startedUs, provenance(startedUs));
  // No tools: the requests are tool-less, so the cache may serve them (agent requests never are).
  const tools = createToolDispatcher({ tools: [], bus, logger, clock });
  const router = createRouter({ bus, registry, global: { ...defaultRoutingConfig(), default_model: MODEL } });
  const evaluator = createEvaluator({ bus, rubric: loadRubric() });
  // δ = 1: Tier 2 serves at the prior threshold (a fresh learned bound serves nothing until it has evidence).
  const providerFor = withRunCache(providers.forRep, prices, { bus, tuner: { delta: 1 }, ...(paid ? { embedder: paid.embedder } : {}) });
  const sessions: string[][] = [];
  for (const [rep, prompt] of prompts.entries()) {
    const record = await runWorkloadRep(
      { runId, workload: withPrompt(prompt), pass: 'single', rep, stickyModel: MODEL, temperature: 0 },
      { bus, prices, tools, router, evaluator, clock, logger, ids: newId, providerFor, maxIterations: 5 },
    );
    runs.saveWorkloadRun(record);
    sessions.push(record.session_ids);
  }
  await bus.drain();
  store.flush();
  runs.saveRun(runId, startedUs, provenance(clock.nowUs()), { status: 'complete' });
  const report = buildReport({ runs, analytics: createAnalytics(store.database, prices), runId, sectionOf: protocolFor });
  store.close();
  return { report, db, sessions };
}

describe('bench run --cache on: cache events and served hits in the trace', () => {
  let run: Awaited<ReturnType<typeof runReps>>;
  let rows: EventRow[];
  beforeAll(async () => {
    run = await runReps([PROMPT, PROMPT, PARAPHRASE]);
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(run.db, { readonly: true });
    rows = db.prepare('SELECT id, session_id, turn_id, parent_event_id, type, payload_json FROM events ORDER BY id').all() as EventRow[];
    db.close();
  }, 120_000);

  const ofSession = (s: string) => rows.filter((r) => r.session_id === s);
  const llmAndCache = (s: string) => ofSession(s).filter((r) => r.type.startsWith('llm.call_') || r.type.startsWith('cache.'));

  it('each cache event sits in the session whose call caused it, between that call started and completed', () => {
    const [first, repeat, paraphrase] = run.sessions.map((s) => s[0]!);
    expect(llmAndCache(first!).map((r) => r.type)).toEqual(['llm.call_started', 'cache.miss', 'cache.set', 'cache.set', 'llm.call_completed']);
    expect(llmAndCache(repeat!).map((r) => r.type)).toEqual(['llm.call_started', 'cache.hit', 'llm.call_completed']);
    expect(llmAndCache(paraphrase!).map((r) => r.type)).toEqual(['llm.call_started', 'cache.hit', 'llm.call_completed']);
    for (const s of [first!, repeat!, paraphrase!]) {
      const [started, ...rest] = llmAndCache(s);
      for (const e of rest.filter((r) => r.type.startsWith('cache.'))) {
        expect(e.parent_event_id).toBe(started!.id);
        expect(e.turn_id).toBe(started!.turn_id);
      }
    }
    const hit = (s: string) => JSON.parse(ofSession(s).find((r) => r.type === 'cache.hit')!.payload_json) as { tier: string };
    expect(hit(repeat!).tier).toBe('exact');
    expect(hit(paraphrase!).tier).toBe('semantic');
  });

  it('a served hit is an llm.call_completed row at $0 with zero tokens, marked with its tier; a computed call is priced', () => {
    const completed = (s: string) => JSON.parse(ofSession(s).find((r) => r.type === 'llm.call_completed')!.payload_json) as Record<string, unknown>;
    const [first, repeat, paraphrase] = run.sessions.map((s) => completed(s[0]!));
    expect(first!.cache_tier).toBeUndefined();
    expect(new Decimal(String(first!.cost_usd)).gt(0)).toBe(true);
    for (const [row, tier] of [[repeat!, 'exact'], [paraphrase!, 'semantic']] as const) {
      expect(row.cache_tier).toBe(tier);
      expect(row.cost_usd).toBe('0');
      expect([row.input_tokens, row.output_tokens, row.cached_input_tokens, row.cache_creation_input_tokens]).toEqual([0, 0, 0, 0]);
    }
    // The served reps cost nothing in the report; the first rep's cost is what each hit avoided.
    const reps = run.report.workloads[0]!.reps;
    expect(reps.map((r) => r.savings.actual_repriced_usd)).toEqual([reps[0]!.savings.actual_repriced_usd, '0', '0']);
  });

  it('the report states calls, hits per tier and avoided cost from the trace, and validates', () => {
    const firstCost = run.report.workloads[0]!.reps[0]!.savings.actual_repriced_usd;
    expect(run.report.cache.semantic).toEqual({
      llm_calls: 3,
      served_calls: 2,
      hits_exact: 1,
      hits_semantic: 1,
      hits_intermediate: 0,
      misses: 1,
      explored: 0,
      sets: 2,
      evictions: 0,
      avoided_cost_usd: new Decimal(firstCost).times(2).toFixed(),
      served_cost_usd: '0',
    });
    expect(validatorFor<BenchReport>('report.schema.json')(run.report)).toBe(true);
  });

  it('analyze --skip-execute on the DB reproduces the report exactly, and prints the cache line', async () => {
    const json = join(tempDir(), 'again.json');
    const r = await bench(['analyze', '--skip-execute', '--db-path', run.db, '--json', json]);
    expect(r.code, r.stderr).toBe(run.report.exit_code);
    expect(JSON.parse(readFileSync(json, 'utf8'))).toEqual(run.report);
    expect(r.stdout).toContain('semantic cache:                   2 of 3 model calls served (exact 1, semantic 1, intermediate 0)');
  });
});

describe('bench run --cache on with a paid embedder: a served Tier 2 row costs its lookup\'s embedding, and analyze agrees', () => {
  // 40 tokens per embedded text at $0.10 per million: each Tier 2 lookup costs $0.000004.
  const EMBED_COST = '0.000004';
  let run: Awaited<ReturnType<typeof runReps>>;
  let rows: EventRow[];
  beforeAll(async () => {
    run = await runReps([PROMPT, PROMPT, PARAPHRASE], { prices: pricesWithEmbedder('0.10', PAID_EMBEDDER_ID), embedder: () => createPaidEmbedder(40) });
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(run.db, { readonly: true });
    rows = db.prepare('SELECT id, session_id, turn_id, parent_event_id, type, payload_json FROM events ORDER BY id').all() as EventRow[];
    db.close();
  }, 120_000);

  const payloadOf = (s: string, type: string) => JSON.parse(rows.find((r) => r.session_id === s && r.type === type)!.payload_json) as Record<string, unknown>;

  it('the Tier 2 hit row is priced at the embedding cost, the Tier 1 hit at $0; the miss states what its lookup embedded', () => {
    const [first, repeat, paraphrase] = run.sessions.map((s) => s[0]!);
    expect(payloadOf(first!, 'cache.miss')).toMatchObject({ embed_cost_usd: EMBED_COST });
    expect(payloadOf(repeat!, 'cache.hit')).toMatchObject({ tier: 'exact', served_cost_usd: '0', embed_cost_usd: '0' });
    expect(payloadOf(repeat!, 'llm.call_completed')).toMatchObject({ cache_tier: 'exact', cost_usd: '0' });
    expect(payloadOf(paraphrase!, 'cache.hit')).toMatchObject({ tier: 'semantic', served_cost_usd: EMBED_COST, embed_cost_usd: EMBED_COST });
    expect(payloadOf(paraphrase!, 'llm.call_completed')).toMatchObject({ cache_tier: 'semantic', cost_usd: EMBED_COST, input_tokens: 0, output_tokens: 0 });
    const reps = run.report.workloads[0]!.reps;
    expect(reps.map((r) => r.savings.actual_repriced_usd)).toEqual([reps[0]!.savings.actual_repriced_usd, '0', EMBED_COST]);
    expect(run.report.cache.semantic).toMatchObject({ served_calls: 2, hits_exact: 1, hits_semantic: 1, served_cost_usd: EMBED_COST });
    expect(validatorFor<BenchReport>('report.schema.json')(run.report)).toBe(true);
  });

  it('analyze --skip-execute re-prices the DB to the same report, the served row at its recorded cost', async () => {
    const json = join(tempDir(), 'again-paid.json');
    const r = await bench(['analyze', '--skip-execute', '--db-path', run.db, '--json', json]);
    expect(r.code, r.stderr).toBe(run.report.exit_code);
    const again = JSON.parse(readFileSync(json, 'utf8')) as BenchReport;
    expect(again.workloads[0]!.reps[2]!.savings.actual_repriced_usd).toBe(EMBED_COST);
    expect(again).toEqual(run.report);
  });
});
