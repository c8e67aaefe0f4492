// Trace store write throughput (spec §12 target: ≥ 100,000 events/s batched) and single-row
// commit latency (catalog §9.1 test 11: p95 < 1 ms). Prints one JSON object.
// Usage: npx tsx scripts/perf/trace-insert.ts [batchedEvents] [singleRows]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createIdFactory } from '../../runtime/core/ids.ts';
import type { Logger } from '../../runtime/core/logger.ts';
import type { BusEvent, KnownEventType } from '../../runtime/events/index.ts';
import { samplePayloads } from '../../runtime/events/test-support/sample-payloads.ts';
import { openTraceStore } from '../../runtime/trace/index.ts';

const BATCHED = Number(process.argv[2] ?? 300_000);
const SINGLE = Number(process.argv[3] ?? 5_000);
/** Sessions in flight at once (the harness's --concurrency). */
const CONCURRENT_SESSIONS = 4;
const TURNS_PER_SESSION = 10;
/** One turn's events in the order the agent loop emits them (catalog §8.1). */
const TURN: KnownEventType[] = ['turn.started', 'route.decided', 'llm.call_started', 'llm.call_completed', 'tool.called', 'tool.completed', 'llm.call_started', 'llm.call_completed', 'turn.completed', 'eval.started', 'eval.completed'];

const quiet: Logger = { log: () => {} };
const ids = createIdFactory();
const t0us = 1_700_000_000_000_000;

/** One session's event types: created, N turns, ended. */
function sessionScript(): KnownEventType[] {
  return ['session.created', ...Array.from({ length: TURNS_PER_SESSION }, () => TURN).flat(), 'session.ended'];
}

/**
 * Events shaped like a run: a few sessions interleaved, ULID session and turn ids, parent chains,
 * the catalog's sample payloads. `scatterTurns` instead reuses 500 short turn ids at random-ish
 * positions, the worst case for the turn_id index.
 */
function makeEvents(n: number, scatterTurns = false): BusEvent[] {
  const out: BusEvent[] = [];
  const script = sessionScript();
  const live = Array.from({ length: CONCURRENT_SESSIONS }, () => ({ sid: ids('sess'), step: 0, turn: ids('turn'), parent: null as string | null }));
  for (let i = 0; i < n; i++) {
    const s = live[i % CONCURRENT_SESSIONS]!;
    const type = script[s.step]!;
    if (type === 'turn.started') s.turn = ids('turn');
    const e: BusEvent = {
      id: ids(),
      timestamp_us: t0us + i,
      session_id: s.sid,
      turn_id: scatterTurns ? `turn_${(i * 7919) % 500}` : s.turn,
      parent_event_id: s.parent,
      type,
      actor: 'agent',
      sensitivity: 'pseudonymous',
      payload: samplePayloads[type] as unknown as Record<string, unknown>,
    };
    out.push(e);
    s.parent = e.id;
    s.step++;
    if (s.step === script.length) Object.assign(s, { sid: ids('sess'), step: 0, parent: null });
  }
  return out;
}

const round = (x: number) => Math.round(x * 100) / 100;
const pct = (sorted: Float64Array, p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

function batched(dir: string, scatterTurns: boolean): { events_per_s: number; seconds: number; cpu_seconds: number } {
  const store = openTraceStore(join(dir, `batched-${scatterTurns}.db`), { logger: quiet });
  const writer = store.writer();
  const events = makeEvents(BATCHED, scatterTurns);
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  // The writer's own path: JSON-encode, buffer, commit every batchRows (default 1,000).
  for (const e of events) void writer.handler(e);
  store.flush();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const used = process.cpuUsage(cpu);
  store.close();
  // CPU time beside wall time tells a slow disk or a busy machine apart from slow code.
  return { events_per_s: Math.round(BATCHED / seconds), seconds: round(seconds), cpu_seconds: round((used.user + used.system) / 1e6) };
}

function singleRow(dir: string): Float64Array {
  // batchRows = 1: each event is its own transaction, the worst case for the fast path.
  const store = openTraceStore(join(dir, 'single.db'), { logger: quiet, batchRows: 1 });
  const writer = store.writer();
  const events = makeEvents(SINGLE + 500);
  for (const e of events.slice(0, 500)) void writer.handler(e);
  const samples = new Float64Array(SINGLE);
  for (let i = 0; i < SINGLE; i++) {
    const e = events[500 + i]!;
    const start = process.hrtime.bigint();
    void writer.handler(e);
    samples[i] = Number(process.hrtime.bigint() - start) / 1000;
  }
  store.close();
  return samples.sort();
}

// METIS_PERF_DIR picks the storage under test (default: the OS temp dir).
const base = process.env.METIS_PERF_DIR ?? tmpdir();
const dir = mkdtempSync(join(base, 'metis-perf-trace-'));
try {
  const b = batched(dir, false);
  const worst = batched(dir, true);
  const s = singleRow(dir);
  console.log(
    JSON.stringify({
      metric: 'trace_store_insert',
      journal_mode: 'wal',
      synchronous: 'NORMAL',
      batched_events: BATCHED,
      batch_rows: 1000,
      batched_seconds: b.seconds,
      batched_cpu_seconds: b.cpu_seconds,
      batched_events_per_s: b.events_per_s,
      target_events_per_s: 100_000,
      meets_throughput_target: b.events_per_s >= 100_000,
      concurrent_sessions: CONCURRENT_SESSIONS,
      scattered_turn_ids_events_per_s: worst.events_per_s,
      single_row_commits: SINGLE,
      single_row_p50_us: round(pct(s, 50)),
      single_row_p95_us: round(pct(s, 95)),
      single_row_p99_us: round(pct(s, 99)),
      target_single_row_p95_us: 1000,
      meets_single_row_target: pct(s, 95) < 1000,
      storage: base,
      node: process.version,
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
