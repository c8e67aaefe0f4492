import { afterEach, describe, expect, it } from 'vitest';
import { features } from '../../runtime/patterns/test-support/feature-fixtures.ts';
import { makeStore, recordTurn, type StoreFixture } from '../../runtime/patterns/test-support/store-fixtures.ts';
import type { WorkloadRunRecord } from '../runs/run-store.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { createVirtualClock } from '../../runtime/core/clock.ts';
import { createMemoryLogger } from '../../runtime/core/logger.ts';
import { createHashingProvider, fingerprintsOfStore, openPatternStore } from '../../runtime/patterns/index.ts';
import { clusterTightness } from '../metrics/index.ts';
import { accumulationErrors, fingerprintSource, fingerprintSourceV2, reportFingerprintSources } from './pattern-checks.ts';

const HAIKU = 'anthropic:claude-haiku-4-5';
let fx: StoreFixture | null = null;
afterEach(() => fx?.cleanup());

function rep(workload: string, turns: number, model = HAIKU): WorkloadRunRecord {
  return { id: 'w', run_id: 'r', workload, pass: 'A', rep: 0, model, signal_strength: 'marginal', session_ids: [], started_at_us: 0, ended_at_us: 0, turns, score: 1, confidence: 1, outcome: 'solved', check: null, assertions: [], error: null };
}

describe('the accumulation check (benchmark.md §6.4)', () => {
  it('passes when every recorded turn is in the store, and names the gap when one was dropped', () => {
    fx = makeStore();
    // Three reps of a two-turn workload: six turns, recorded on two fingerprints.
    for (let i = 0; i < 3; i++) {
      recordTurn(fx.store, features({ workload_id: 'w1', intent_tags: ['debug'] }), { model: HAIKU });
      recordTurn(fx.store, features({ workload_id: 'w1', intent_tags: ['test'] }), { model: HAIKU });
    }
    const reps = [rep('w1', 2), rep('w1', 2), rep('w1', 2)];
    expect(accumulationErrors(fx.store, reps, 3)).toEqual([]);
    // A fourth rep whose turns never reached the store: a silently dropped record.
    const errors = accumulationErrors(fx.store, [...reps, rep('w1', 2)], 4);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/recording-path error: after pass A, w1 on anthropic:claude-haiku-4-5 has 6 samples in the pattern store, expected at least 8/);
  });

  it('a workload whose records all went missing is reported too', () => {
    fx = makeStore();
    expect(accumulationErrors(fx.store, [rep('w2', 1)], 1)[0]).toMatch(/w2 .* has 0 samples/);
  });

  it('cluster tightness sees every fingerprint with the workload partition switched off', () => {
    fx = makeStore();
    recordTurn(fx.store, features({ workload_id: 'a', intent_tags: ['debug'] }));
    recordTurn(fx.store, features({ workload_id: 'b', intent_tags: ['debug'] }));
    const src = fingerprintSource(fx.store.fingerprints());
    expect(src.items.map((i) => i.workload).sort()).toEqual(['a', 'b']);
    // Structurally identical, different workloads: 1 without the partition (it would be 0.15 with it).
    expect(src.similarity(src.items[0]!.value, src.items[1]!.value)).toBeCloseTo(1, 12);
  });

  it('v2 tightness blends the stored embeddings: same-workload pairs score higher than cross-workload ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tight-v2-'));
    const store = openPatternStore(join(dir, 'p.db'), { logger: createMemoryLogger(), clock: createVirtualClock(1), fingerprintVersion: 'v2', embeddingProvider: createHashingProvider() });
    try {
      const turns = [['w1', 'fix the bug in the login handler', ['debug']], ['w1', 'fix the bug in the logout handler', ['debug', 'x']], ['w2', 'write release notes for version two', ['write']]] as const;
      for (const [i, [w, text, tags]] of turns.entries()) {
        const input = { turn_id: `t${i}`, features: features({ workload_id: w, intent_tags: [...tags] }), primary_model: HAIKU, success_score: 0.9, cost_usd: new Decimal('0.01'), latency_ms: 100, pricing_version: 'p1' };
        store.record({ ...input, embedding: await store.embedForRecording(text) }, { session_id: 's', turn_id: `t${i}`, parent_event_id: null });
      }
      const read = fingerprintsOfStore(store);
      const src = fingerprintSourceV2(read.fingerprints, read.embeddings!, 0.6);
      expect(src.items.every((i) => i.value.embedding !== null && i.value.embedding_provider === 'local:hashing-384')).toBe(true);
      const t = clusterTightness(src.items, src.similarity);
      expect(t.intra!).toBeGreaterThan(t.inter!);
      // Embeddings change the figure: v2 is not the v1 number under another name.
      const v1Source = fingerprintSource(store.fingerprints());
      const v1 = clusterTightness(v1Source.items, v1Source.similarity);
      expect(t.intra).not.toBeCloseTo(v1.intra!, 6);
      // A v1 store has no v2 view.
      fx = makeStore();
      expect(reportFingerprintSources(fingerprintsOfStore(fx.store), 0.6).fingerprintsV2).toBeNull();
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
