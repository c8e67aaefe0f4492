import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { Decimal } from 'decimal.js';
import type { IExportTraceServiceRequest } from '@opentelemetry/otlp-transformer/build/src/trace/internal-types.js';
import * as stable from '@opentelemetry/semantic-conventions';
import * as incubating from '@opentelemetry/semantic-conventions/incubating';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METIS_ATTRIBUTES, SEMCONV_SCHEMA_URL, SEMCONV_VERSION } from '../../harness/export/otlp/semconv.ts';
import { attributesOf, renderSpanTree, spansOf, type OtlpJsonRequest, type OtlpJsonSpan } from '../../harness/export/otlp/span-tree.ts';
import { bench, tempDir } from '../support/cli.ts';
import { sharedRun } from '../support/shared-run.ts';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback/loopback-server.ts';

const ENV = { PATH: process.env.PATH };
let dir: string;
let db: string;
let file: string;
let request: OtlpJsonRequest;
let spans: OtlpJsonSpan[];
let report: { aggregate: { savings: { actual_repriced_usd: string } }; workloads: { reps: { llm_calls: number; tool_calls: number }[] }[] };

/** Every attribute name the pinned semantic-conventions package defines (stable and incubating). */
const CONVENTION_NAMES = new Set(
  [...Object.entries(stable), ...Object.entries(incubating)].filter(([k, v]) => k.startsWith('ATTR_') && typeof v === 'string').map(([, v]) => v as string),
);

beforeAll(async () => {
  dir = tempDir();
  // A delegating workload: worker sessions, tool calls and hidden checks in one small sim run.
  // The run only feeds what this file reads: shared with the other files that read the same run (built once).
  db = await sharedRun(['--workload', 'fix-a-bug-small', '--workload', 'multi-step-with-delegation', '--quiet'], ENV);
  const a = await bench(['analyze', '--skip-execute', '--db-path', db, '--json', join(dir, 'analyze.json')], { env: ENV });
  expect([0, 1], a.stderr).toContain(a.code);
  report = JSON.parse(readFileSync(join(dir, 'analyze.json'), 'utf8')) as typeof report;
  file = join(dir, 'run.otlp.json');
  const e = await bench(['export', '--format', 'otlp', '--db-path', db, '--out', file], { env: ENV });
  expect(e.code, e.stderr).toBe(0);
  // Decoded as the official transformer's ExportTraceServiceRequest type.
  const decoded = JSON.parse(readFileSync(file, 'utf8')) as IExportTraceServiceRequest;
  expect(decoded.resourceSpans?.length).toBe(1);
  request = decoded as unknown as OtlpJsonRequest;
  spans = spansOf(request);
}, 180_000);

const op = (s: OtlpJsonSpan) => attributesOf(s)['gen_ai.operation.name'];

describe('bench export --format otlp (file)', () => {
  it('builds the tree run → invoke_agent per rep → turn → chat → execute_tool, every parent present', () => {
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const roots = spans.filter((s) => !s.parentSpanId);
    expect(roots.map(op)).toEqual(['invoke_workflow']);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    for (const s of spans) if (s.parentSpanId) expect(byId.has(s.parentSpanId), s.name).toBe(true);
    const parentOp = (s: OtlpJsonSpan) => (s.parentSpanId ? op(byId.get(s.parentSpanId)!) : null);
    const reps = spans.filter((s) => op(s) === 'invoke_agent');
    expect(reps.map((s) => attributesOf(s)['metis.workload']).sort()).toEqual(['fix-a-bug-small', 'multi-step-with-delegation']);
    for (const s of reps) {
      expect(parentOp(s)).toBe('invoke_workflow');
      expect(attributesOf(s)).toMatchObject({ 'metis.pass': 'single', 'metis.rep': 0 });
      expect(['solved', 'unsolved']).toContain(attributesOf(s)['metis.outcome']);
      // The hidden check and the gated score as gen_ai.evaluation.result events.
      const evals = (s.events ?? []).filter((e) => e.name === 'gen_ai.evaluation.result').map((e) => attributesOf(e)['gen_ai.evaluation.name']);
      expect(evals).toEqual(['metis.hidden_check', 'metis.gated_score']);
    }
    const turns = spans.filter((s) => s.name.startsWith('turn '));
    for (const t of turns) {
      expect(['invoke_agent', 'execute_tool']).toContain(parentOp(t));
      const route = (t.events ?? []).filter((e) => e.name === 'metis.route.decided');
      expect(route).toHaveLength(1);
      expect(attributesOf(route[0]!)['metis.route.verdicts']).toContain('chose');
    }
    // Worker turns hang under the delegate call that started them.
    expect(turns.some((t) => byId.get(t.parentSpanId!)!.name === 'execute_tool delegate')).toBe(true);
    for (const s of spans.filter((x) => op(x) === 'chat')) expect(byId.get(s.parentSpanId!)!.name).toMatch(/^turn /);
    for (const s of spans.filter((x) => op(x) === 'execute_tool')) expect(parentOp(s)).toBe('chat');
    // One chat span per model call and one execute_tool per tool call, as analyze counts them.
    const reps2 = report.workloads.flatMap((w) => w.reps);
    expect(spans.filter((s) => op(s) === 'chat')).toHaveLength(reps2.reduce((a, r) => a + r.llm_calls, 0));
    expect(spans.filter((s) => op(s) === 'execute_tool')).toHaveLength(reps2.reduce((a, r) => a + r.tool_calls, 0));
  });

  it(`uses only attribute names of the pinned conventions (v${SEMCONV_VERSION}) or documented metis.* ones`, () => {
    expect(request.resourceSpans[0]!.resource!.schemaUrl).toBe(SEMCONV_SCHEMA_URL);
    expect(request.resourceSpans[0]!.scopeSpans[0]!.schemaUrl).toBe(SEMCONV_SCHEMA_URL);
    const names = new Set<string>();
    for (const s of spans) {
      for (const k of Object.keys(attributesOf(s))) names.add(k);
      for (const e of s.events ?? []) for (const k of Object.keys(attributesOf(e))) names.add(k);
    }
    const unknown = [...names].filter((n) => !CONVENTION_NAMES.has(n) && !(n in METIS_ATTRIBUTES));
    expect(unknown).toEqual([]);
    for (const n of names) if (n.startsWith('gen_ai.')) expect(CONVENTION_NAMES.has(n), n).toBe(true);
    const chat = attributesOf(spans.find((s) => op(s) === 'chat')!);
    for (const k of ['gen_ai.request.model', 'gen_ai.response.model', 'gen_ai.provider.name', 'gen_ai.usage.input_tokens', 'gen_ai.usage.output_tokens', 'gen_ai.usage.cache_read.input_tokens', 'gen_ai.usage.cache_creation.input_tokens', 'metis.cost_usd']) {
      expect(chat[k], k).toBeDefined();
    }
    expect(chat['gen_ai.provider.name']).toBe('anthropic');
    expect(typeof chat['metis.cost_usd']).toBe('string');
  });

  it("sums tokens and cost to the trace's and analyze's figures", () => {
    const chats = spans.filter((s) => op(s) === 'chat').map(attributesOf);
    const cost = chats.reduce((a, c) => a.plus(new Decimal(c['metis.cost_usd'] as string)), new Decimal(0));
    expect(cost.toString()).toBe(new Decimal(report.aggregate.savings.actual_repriced_usd).toString());
    const run = attributesOf(spans.find((s) => op(s) === 'invoke_workflow')!);
    expect(run['metis.cost_usd']).toBe(cost.toString());
    const sum = (k: string) => chats.reduce((a, c) => a + (c[k] as number), 0);
    const trace = new Database(db, { readonly: true });
    const t = trace
      .prepare(
        "SELECT sum(json_extract(payload_json,'$.input_tokens')) i, sum(json_extract(payload_json,'$.output_tokens')) o, sum(json_extract(payload_json,'$.cached_input_tokens')) c, sum(json_extract(payload_json,'$.cache_creation_input_tokens')) w FROM events WHERE type='llm.call_completed'",
      )
      .get() as { i: number; o: number; c: number; w: number };
    trace.close();
    // The convention's input_tokens counts cache reads and writes; the canonical one does not.
    expect(sum('gen_ai.usage.input_tokens')).toBe(t.i + t.c + t.w);
    expect(sum('metis.usage.uncached_input_tokens')).toBe(t.i);
    expect(sum('gen_ai.usage.output_tokens')).toBe(t.o);
    expect(sum('gen_ai.usage.cache_read.input_tokens')).toBe(t.c);
    expect(sum('gen_ai.usage.cache_creation.input_tokens')).toBe(t.w);
    expect(t.c).toBeGreaterThan(0);
  });

  it('exports no message or tool content unless --include-content', async () => {
    const trace = new Database(db, { readonly: true });
    const transcript = (trace.prepare('SELECT messages_json FROM session_transcripts').all() as { messages_json: string }[]).map((r) => JSON.parse(r.messages_json) as { content: { type: string; text?: string; content?: string }[] }[]);
    trace.close();
    // Distinctive texts the run said or read: the user's task and the longest tool results.
    const texts = transcript.flat().flatMap((m) => m.content.map((b) => b.text ?? b.content ?? '')).filter((x) => x.length > 40);
    expect(texts.length).toBeGreaterThan(3);
    const raw = readFileSync(file, 'utf8');
    const contentKeys = ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result', 'gen_ai.evaluation.explanation'];
    for (const k of contentKeys) expect(raw).not.toContain(`"${k}"`);
    for (const t of texts) expect(raw).not.toContain(JSON.stringify(t.slice(0, 40)).slice(1, -1));
    expect(raw).not.toContain('/metis-bench-runs/'); // no workspace paths either

    const withContent = join(dir, 'content.otlp.json');
    const e = await bench(['export', '--format', 'otlp', '--db-path', db, '--out', withContent, '--include-content'], { env: ENV });
    expect(e.code, e.stderr).toBe(0);
    const rawC = readFileSync(withContent, 'utf8');
    for (const k of contentKeys) expect(rawC).toContain(`"${k}"`);
    const tool = spansOf(JSON.parse(rawC) as OtlpJsonRequest).find((s) => attributesOf(s)['gen_ai.tool.name'] === 'read_file')!;
    expect(JSON.parse(attributesOf(tool)['gen_ai.tool.call.arguments'] as string)).toHaveProperty('path');
  });

  it('refuses to overwrite an existing --out file unless --force (before: silently replaced)', async () => {
    const before = readFileSync(file, 'utf8');
    const again = await bench(['export', '--format', 'otlp', '--db-path', db, '--out', file], { env: ENV });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`${file}: already exists; bench export does not overwrite it: pass --force to replace it`);
    writeFileSync(file, 'kept');
    const refused = await bench(['export', '--format', 'otlp', '--db-path', db, '--out', file], { env: ENV });
    expect(refused.code).toBe(2);
    expect(readFileSync(file, 'utf8')).toBe('kept');
    const forced = await bench(['export', '--format', 'otlp', '--db-path', db, '--out', file, '--force'], { env: ENV });
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it("leaves no -wal or -shm file beside the DB it read", async () => {
    const e = await bench(['export', '--format', 'otlp', '--db-path', db, '--out', join(tempDir(), 'run.otlp.json')], { env: ENV });
    expect(e.code, e.stderr).toBe(0);
    expect(readdirSync(dirname(db)).filter((n) => n === `${basename(db)}-wal` || n === `${basename(db)}-shm`)).toEqual([]);
  });

  it('derives the same trace and span ids on every export (byte-identical files)', async () => {
    const again = join(dir, 'again.otlp.json');
    const e = await bench(['export', '--format', 'otlp', '--db-path', db, '--out', again], { env: ENV });
    expect(e.code, e.stderr).toBe(0);
    expect(readFileSync(again, 'utf8')).toBe(readFileSync(file, 'utf8'));
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(spans.length);
  });

  it('prints a readable span tree of one rep', () => {
    const rep = spans.find((s) => attributesOf(s)['metis.workload'] === 'fix-a-bug-small')!;
    const lines = renderSpanTree(spans, rep.spanId);
    expect(lines[0]).toMatch(/^invoke_agent fix-a-bug-small .*pass=single rep=0/);
    expect(lines.some((l) => /^ {4}chat claude-haiku-4-5 /.test(l))).toBe(true);
    expect(lines.some((l) => /^ {6}execute_tool /.test(l))).toBe(true);
  });
});

describe('bench export --format otlp --endpoint (loopback collector)', () => {
  let collector: LoopbackServer;
  beforeAll(async () => {
    collector = await startLoopbackServer({ path: '/v1/traces', fallback: () => ({ kind: 'json', body: {} }) });
  });
  afterAll(async () => {
    await collector?.close();
  });

  it('sends exactly the exported spans, with the given headers', async () => {
    const r = await bench(['export', '--format', 'otlp', '--db-path', db, '--endpoint', `${collector.baseURL}/v1/traces`, '--header', 'Authorization=Basic cGs6c2s='], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`exported ${spans.length} span(s)`);
    expect(collector.requests.length).toBeGreaterThan(0);
    for (const q of collector.requests) {
      expect(q.headers.authorization).toBe('Basic cGs6c2s=');
      expect(q.headers['content-type']).toContain('application/json');
    }
    const received = collector.requests.flatMap((q) => spansOf(q.body as OtlpJsonRequest));
    expect(received).toEqual(spans);
  });

  it('turns a collector that is not there into exit 2 naming the URL', async () => {
    const closed = await startLoopbackServer({ path: '/v1/traces', fallback: () => ({ kind: 'json', body: {} }) });
    const url = `${closed.baseURL}/v1/traces`;
    await closed.close();
    const r = await bench(['export', '--format', 'otlp', '--db-path', db, '--endpoint', url], { env: ENV });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`OTLP export to ${url} failed`);
  });
});

describe('bench export refuses bad input with exit 2', () => {
  it.each([
    [['--format', 'xml', '--out', 'x'], "--format 'xml'"],
    [['--format', 'otlp'], 'needs --out FILE, --endpoint URL, or both'],
    [['--format', 'otlp', '--endpoint', 'ftp://x/v1/traces'], 'only http:// and https://'],
    [['--format', 'otlp', '--endpoint', 'http://127.0.0.1:1/v1/traces', '--header', 'novalue'], "--header 'novalue': expected NAME=VALUE"],
    [['--format', 'otlp', '--out', 'x.json', '--run', 'run_nope'], "no run 'run_nope'"],
  ])('%j', async (args, message) => {
    const r = await bench(['export', '--db-path', db, ...args], { env: ENV, cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it('a missing DB', async () => {
    const r = await bench(['export', '--format', 'otlp', '--db-path', '/nonexistent/x.db', '--out', 'x.json'], { env: ENV, cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('/nonexistent/x.db: no such trace DB');
  });
});

describe('bench run --otlp-endpoint (spans streamed while the run goes)', () => {
  let collector: LoopbackServer;
  beforeAll(async () => {
    collector = await startLoopbackServer({ path: '/v1/traces', fallback: () => ({ kind: 'json', body: {} }) });
  });
  afterAll(async () => {
    await collector?.close();
  });
  const bySpanId = (list: OtlpJsonSpan[]) => [...list].sort((a, b) => a.spanId.localeCompare(b.spanId));

  it('sends the same spans bench export builds from the finished DB', async () => {
    const runDb = join(dir, 'streamed.db');
    const r = await bench(['run', '--workload', 'multi-step-with-delegation', '--quiet', '--db-path', runDb, '--otlp-endpoint', `${collector.baseURL}/v1/traces`, '--otlp-header', 'x-tenant=bench'], { env: ENV });
    expect([0, 1], r.stderr).toContain(r.code);
    expect(r.stdout + r.stderr).not.toContain('--otlp-endpoint');
    expect(collector.requests.every((q) => q.headers['x-tenant'] === 'bench')).toBe(true);
    const streamed = collector.requests.flatMap((q) => spansOf(q.body as OtlpJsonRequest));
    const out = join(dir, 'streamed.otlp.json');
    const e = await bench(['export', '--format', 'otlp', '--db-path', runDb, '--out', out], { env: ENV });
    expect(e.code, e.stderr).toBe(0);
    const exported = spansOf(JSON.parse(readFileSync(out, 'utf8')) as OtlpJsonRequest);
    expect(exported.length).toBeGreaterThan(10);
    expect(bySpanId(streamed)).toEqual(bySpanId(exported));
  }, 120_000);

  it('a collector that is not there costs a warning, not the run', async () => {
    const closed = await startLoopbackServer({ path: '/v1/traces', fallback: () => ({ kind: 'json', body: {} }) });
    const url = `${closed.baseURL}/v1/traces`;
    await closed.close();
    const runDb = join(dir, 'dead-collector.db');
    const r = await bench(['run', '--workload', 'fix-a-bug-small', '--quiet', '--db-path', runDb, '--otlp-endpoint', url], { env: ENV });
    expect([0, 1], r.stderr).toContain(r.code);
    expect(r.stdout + r.stderr).toContain(`--otlp-endpoint ${url}`);
    const report = JSON.parse(readFileSync(join(dir, 'dead-collector.json'), 'utf8')) as { warnings: string[]; workloads: unknown[] };
    expect(report.workloads).toHaveLength(1);
    expect(report.warnings.some((w) => w.startsWith(`--otlp-endpoint ${url}`))).toBe(true);
  }, 120_000);

  it('refuses --otlp-header without --otlp-endpoint, and a bad endpoint, with exit 2', async () => {
    const a = await bench(['run', '--workload', 'fix-a-bug-small', '--db-path', join(dir, 'x.db'), '--otlp-header', 'a=b'], { env: ENV });
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('--otlp-header applies to --otlp-endpoint');
    const b = await bench(['run', '--workload', 'fix-a-bug-small', '--db-path', join(dir, 'y.db'), '--otlp-endpoint', 'not a url'], { env: ENV });
    expect(b.code).toBe(2);
    expect(b.stderr).toContain("--otlp-endpoint 'not a url': not a URL");
  });
});
