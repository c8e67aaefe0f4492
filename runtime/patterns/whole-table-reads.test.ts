// A store that read only whole tables (fingerprints, outcomes) has not loaded its K-NN index; when its next use
// is a write, the index is loaded before the write lands in it, so a search then sees every row of the file.
// (pattern-store.test.ts holds the reads and a search first.)
import { describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { createVirtualClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { createMemoryPatternTables, type MemoryPatternTables } from './memory-pattern-tables.ts';
import { openStructuralStore, type PatternTablesBackend } from './sqlite-pattern-store.ts';
import { features, HAIKU } from './test-support/feature-fixtures.ts';
import { T0_US } from './test-support/store-fixtures.ts';

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

describe('a pattern store written to after reading whole tables', () => {
  it('loads its index before the write, which a search then finds beside the rows already there', () => {
    const { open, loads } = sharedTables();
    record(open(), 'a', 't1');
    const reader = open();
    reader.fingerprints();
    const before = loads.n;
    // A write on the unloaded index would leave it with its own row only, and the search would miss 'a'.
    record(reader, 'b', 't2');
    expect(loads.n).toBe(before + 1);
    const ids = new Map(reader.fingerprints().map((f) => [f.id, f.structural.workload_id]));
    expect(reader.findKNearest(features({ workload_id: 'a' }), 5).map((m) => ids.get(m.fingerprint_id)).sort()).toEqual(['a', 'b']);
    expect(loads.n).toBe(before + 1);
  });
});
