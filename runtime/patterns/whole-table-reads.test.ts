// Reads of whole tables (fingerprints, outcomes) go to the tables and leave the K-NN mirror unloaded: a report
// that reads a store's fingerprints for cluster tightness loads no outcomes or prompt rows. The first caller
// that uses the mirror (a search, a write) loads it then, so it still sees every row.
import { afterEach, describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { createVirtualClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { createMemoryPatternTables, type MemoryPatternTables } from './memory-pattern-tables.ts';
import { openStructuralStore, type PatternTablesBackend } from './sqlite-pattern-store.ts';
import { features, HAIKU } from './test-support/feature-fixtures.ts';
import { makeStore, recordTurn, T0_US, type StoreFixture } from './test-support/store-fixtures.ts';

/** One set of tables behind any number of stores, counting the full loads of the mirror (its prompt-row read). */
function sharedTables() {
  const tables = createMemoryPatternTables('shared');
  const loads = { n: 0 };
  const counted = new Proxy(tables, {
    get(target, prop, receiver) {
      if (prop === 'readPromptOutcomes') loads.n += 1;
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const backend: PatternTablesBackend<MemoryPatternTables> = { path: 'shared', exists: () => true, open: () => counted, embeddingCache: () => { throw new Error('not used'); } };
  const open = () => openStructuralStore(backend, { logger: createMemoryLogger(), clock: createVirtualClock(T0_US) }, null).store;
  return { open, loads };
}

const ctx = { session_id: 's', turn_id: null, parent_event_id: null };
const record = (store: ReturnType<ReturnType<typeof sharedTables>['open']>, workload: string, turn: string) =>
  store.record({ turn_id: turn, features: features({ workload_id: workload }), primary_model: HAIKU, success_score: 0.9, cost_usd: new Decimal('0.001'), latency_ms: 10, pricing_version: 'p' }, ctx);

describe('a pattern store read for whole tables', () => {
  let fx: StoreFixture | null = null;
  afterEach(() => {
    fx?.cleanup();
    fx = null;
  });

  it('reads fingerprints and outcomes without loading the mirror', () => {
    const { open, loads } = sharedTables();
    record(open(), 'a', 't1');
    const reader = open();
    const before = loads.n;
    expect(reader.fingerprints().map((f) => f.structural.workload_id)).toEqual(['a']);
    expect(reader.outcomes()).toHaveLength(1);
    expect(loads.n).toBe(before);
  });

  it('loads the mirror for the first search or write after such a read, which then sees every row', () => {
    const { open, loads } = sharedTables();
    record(open(), 'a', 't1');
    const reader = open();
    reader.fingerprints();
    const before = loads.n;
    // A write on the unloaded mirror would leave the index with its own row only, and the search would miss 'a'.
    record(reader, 'b', 't2');
    expect(loads.n).toBe(before + 1);
    const ids = new Map(reader.fingerprints().map((f) => [f.id, f.structural.workload_id]));
    expect(reader.findKNearest(features({ workload_id: 'a' }), 5).map((m) => ids.get(m.fingerprint_id)).sort()).toEqual(['a', 'b']);
    expect(loads.n).toBe(before + 1);
  });

  it('on a file: a second instance reads the first one\'s rows, then searches them', () => {
    fx = makeStore();
    recordTurn(fx.store, features({ workload_id: 'a' }));
    const reader = fx.reopen();
    expect(reader.fingerprints()).toHaveLength(1);
    expect(reader.findKNearest(features({ workload_id: 'a' }), 5)).toHaveLength(1);
  });
});
