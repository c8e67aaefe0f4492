// Caller-path cost of EventBus.emit (spec §12 target: p95 ≤ 20 µs) with the trace writer
// subscribed, as in a real run. Prints one JSON object. Usage: npx tsx scripts/perf/event-emit.ts [n]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSystemClock } from '../../runtime/core/clock.ts';
import type { Logger } from '../../runtime/core/logger.ts';
import { createEventBus, type EventDraft, type LlmCallCompletedPayload } from '../../runtime/events/index.ts';
import { openTraceStore } from '../../runtime/trace/index.ts';

const N = Number(process.argv[2] ?? 100_000);
const WARMUP = 10_000;
// Yield to the dispatch worker this often, as an agent loop does at every await on I/O.
const YIELD_EVERY = 200;

const quiet: Logger = { log: () => {} };

function draft(i: number): EventDraft<LlmCallCompletedPayload> {
  return {
    session_id: `sess_${i % 8}`,
    turn_id: `turn_${i % 64}`,
    parent_event_id: null,
    type: 'llm.call_completed',
    actor: 'agent',
    payload: {
      model: 'anthropic:claude-haiku-4-5',
      provider: 'sim',
      input_tokens: 900 + (i % 100),
      output_tokens: 80,
      cached_input_tokens: 0,
      cache_creation_input_tokens: 1024,
      cost_usd: '0.00231',
      pricing_version: '2026-05-01',
      latency_ms: 840,
      stop_reason: 'tool_use',
      produced_tool_calls: 1,
      produced_thinking_blocks: 0,
    },
  };
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const round = (x: number) => Math.round(x * 100) / 100;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'metis-perf-emit-'));
  const store = openTraceStore(join(dir, 'trace.db'), { logger: quiet });
  const bus = createEventBus({ mode: 'strict', logger: quiet, clock: createSystemClock() });
  bus.subscribe(store.writer());
  const drafts = Array.from({ length: N + WARMUP }, (_, i) => draft(i));

  for (let i = 0; i < WARMUP; i++) {
    bus.emit(drafts[i]!);
    if (i % YIELD_EVERY === 0) await new Promise((r) => setImmediate(r));
  }
  await bus.drain();

  const samples = new Float64Array(N);
  const wallStart = process.hrtime.bigint();
  for (let i = 0; i < N; i++) {
    const d = drafts[WARMUP + i]!;
    const t0 = process.hrtime.bigint();
    bus.emit(d);
    samples[i] = Number(process.hrtime.bigint() - t0) / 1000;
    if (i % YIELD_EVERY === YIELD_EVERY - 1) await new Promise((r) => setImmediate(r));
  }
  await bus.drain();
  const wallS = Number(process.hrtime.bigint() - wallStart) / 1e9;

  // The cost of the two hrtime calls themselves, so the reader can subtract it.
  const overhead = new Float64Array(10_000);
  for (let i = 0; i < overhead.length; i++) {
    const t0 = process.hrtime.bigint();
    overhead[i] = Number(process.hrtime.bigint() - t0) / 1000;
  }
  overhead.sort();

  const persisted = (store.database.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
  store.close();
  rmSync(dir, { recursive: true, force: true });

  samples.sort();
  const p95 = percentile(samples, 95);
  console.log(
    JSON.stringify({
      metric: 'event_emit_caller_path_us',
      event_type: 'llm.call_completed',
      mode: 'strict',
      trace_writer_subscribed: true,
      n: N,
      yield_every: YIELD_EVERY,
      p50_us: round(percentile(samples, 50)),
      p95_us: round(p95),
      p99_us: round(percentile(samples, 99)),
      max_us: round(samples[samples.length - 1]!),
      timer_overhead_p50_us: round(percentile(overhead, 50)),
      target_p95_us: 20,
      meets_target: p95 <= 20,
      end_to_end_events_per_s: Math.round(N / wallS),
      events_persisted: persisted,
      node: process.version,
    }),
  );
}

await main();
