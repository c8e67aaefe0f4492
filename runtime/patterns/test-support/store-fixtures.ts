// Fixture builders for pattern-store tests: a store on a temp file with a virtual clock, a strict bus
// recording every event, and one-line record / verdict helpers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { createVirtualClock, type VirtualClock } from '../../core/clock.ts';
import { createIdFactory } from '../../core/ids.ts';
import { createMemoryLogger, type LogRecord } from '../../core/logger.ts';
import { createEventBus, type BusEvent, type EventBus } from '../../events/index.ts';
import type { EventContext, PatternCaps, PatternStore, RecordResult } from '../pattern-store.ts';
import { openPatternStore } from '../sqlite-pattern-store.ts';
import type { StructuralFeatures } from '../structural-features.ts';
import { HAIKU } from './feature-fixtures.ts';

/** 2026-01-01T00:00:00Z in microseconds. */
export const T0_US = 1_767_225_600_000_000;
export const DAY_US = 86_400_000_000;

export const CTX: EventContext = { session_id: 'sess_1', turn_id: null, parent_event_id: null };

/** A store under test and what it touches. */
export interface StoreFixture {
  store: PatternStore;
  path: string;
  dir: string;
  clock: VirtualClock;
  bus: EventBus;
  events: BusEvent[];
  logs: LogRecord[];
  /** Opens another instance on the same file (same clock, bus and logger). */
  reopen(caps?: Partial<PatternCaps>): PatternStore;
  cleanup(): void;
}

/** A fresh temp dir. */
export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'metis-patterns-'));
}

/** A store at `<dir>/.metis/patterns.db` (or `path`) with a strict bus that records every event. */
export function makeStore(opts: { caps?: Partial<PatternCaps>; dir?: string; path?: string } = {}): StoreFixture {
  const dir = opts.dir ?? tempDir();
  const path = opts.path ?? join(dir, '.metis', 'patterns.db');
  const clock = createVirtualClock(T0_US);
  const logger = createMemoryLogger();
  const bus = createEventBus({ mode: 'strict', logger, clock });
  const events: BusEvent[] = [];
  bus.subscribe({ name: 'recorder', filter: {}, fast_path: true, handler: (e) => void events.push(e) });
  const ids = createIdFactory(() => Math.floor(clock.nowUs() / 1000));
  const open = (caps = opts.caps) => openPatternStore(path, { logger, clock, bus, caps, ids });
  const opened: PatternStore[] = [];
  const reopen = (caps?: Partial<PatternCaps>) => {
    const s = open(caps ?? opts.caps);
    opened.push(s);
    return s;
  };
  const store = reopen();
  return {
    store,
    path,
    dir,
    clock,
    bus,
    events,
    logs: logger.records,
    reopen,
    cleanup() {
      for (const s of opened) s.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let turnSeq = 0;

/** Records one turn (a fresh turn id unless given) with sensible defaults. */
export function recordTurn(
  store: PatternStore,
  f: StructuralFeatures,
  over: { model?: string; score?: number | null; cost?: string; latency?: number; pricing?: string; turn?: string } = {},
): RecordResult {
  return store.record(
    {
      turn_id: over.turn ?? `turn_${++turnSeq}`,
      features: f,
      primary_model: over.model ?? HAIKU,
      success_score: over.score === undefined ? null : over.score,
      cost_usd: new Decimal(over.cost ?? '0.001'),
      latency_ms: over.latency ?? 100,
      pricing_version: over.pricing ?? '2026-05-01',
    },
    CTX,
  );
}

/** Payloads of the recorded events of one type. */
export function payloadsOf(events: readonly BusEvent[], type: string): Record<string, unknown>[] {
  return events.filter((e) => e.type === type).map((e) => e.payload);
}
