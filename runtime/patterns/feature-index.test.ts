// The in-memory mirror must answer exactly what a brute-force scan of the file answers, whatever
// sequence of writes, verdicts, evictions and foreign writes (another instance) led there.
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareNeighbors, similarity, type NeighborMatch, type PatternStore, type StructuralFeatures } from './index.ts';
import { arbFeatures, arbWideFeatures } from './test-support/arbitraries.ts';
import { features, HAIKU, OPUS, SONNET } from './test-support/feature-fixtures.ts';
import { CTX, DAY_US, makeStore, recordTurn } from './test-support/store-fixtures.ts';

const MODELS = [HAIKU, SONNET, OPUS];

type Op =
  | { kind: 'record'; f: number; model: number; score: number | null; cents: number; foreign: boolean }
  | { kind: 'verdict'; turn: number; score: number; confidence: number }
  | { kind: 'advance'; days: number }
  | { kind: 'evict'; maxRows: number }
  | { kind: 'clear' };

const arbOp: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('record' as const), f: fc.nat(), model: fc.nat(2), score: fc.option(fc.double({ min: 0, max: 1, noNaN: true })), cents: fc.nat(500), foreign: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('verdict' as const), turn: fc.nat(), score: fc.double({ min: 0, max: 1, noNaN: true }), confidence: fc.double({ min: 0, max: 1, noNaN: true }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), days: fc.integer({ min: 0, max: 40 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('evict' as const), maxRows: fc.nat(8) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
);

/** K-NN recomputed from scratch from what the file holds: `similarity` per row, then a full sort. */
function bruteForce(store: PatternStore, q: StructuralFeatures, k: number, useWorkloadId: boolean): NeighborMatch[] {
  const fps = new Map(store.fingerprints().map((f) => [f.id, f.structural]));
  return store
    .outcomes()
    .map((o) => ({ o, sim: similarity(q, fps.get(o.fingerprint_id)!, { useWorkloadId }) }))
    .sort((a, b) => compareNeighbors(a.sim, a.o, b.sim, b.o))
    .slice(0, k)
    .map(({ o, sim }) => ({
      fingerprint_id: o.fingerprint_id,
      primary_model: o.primary_model,
      similarity: sim,
      sample_size: o.sample_size,
      success_score_mean: o.success_score_mean,
      success_score_count: o.success_score_count,
      avg_cost_usd: o.avg_cost_usd,
      avg_latency_ms: o.avg_latency_ms,
    }));
}

const comparable = (ns: NeighborMatch[]) => ns.map((n) => ({ ...n, avg_cost_usd: n.avg_cost_usd.toString() }));

function run(pool: StructuralFeatures[], ops: Op[], queries: StructuralFeatures[]): void {
  const fx = makeStore({ caps: { soft_cap_rows: 6, hard_cap_rows: 8, max_age_days: 30 } });
  try {
    const other = fx.reopen();
    const turns: string[] = [];
    const check = (s: PatternStore, qs: StructuralFeatures[], ks: number[], modes: boolean[]) => {
      for (const q of qs)
        for (const k of ks)
          for (const useWorkloadId of modes) expect(comparable(s.findKNearest(q, k, { useWorkloadId }))).toEqual(comparable(bruteForce(s, q, k, useWorkloadId)));
    };
    for (const op of ops) {
      if (op.kind === 'record') {
        const turn = `t${turns.length}`;
        turns.push(turn);
        const s = op.foreign ? other : fx.store;
        s.record(
          { turn_id: turn, features: pool[op.f % pool.length]!, primary_model: MODELS[op.model]!, success_score: op.score, cost_usd: new Decimal(op.cents).div(100), latency_ms: op.cents, pricing_version: 'v1' },
          CTX,
        );
      } else if (op.kind === 'verdict' && turns.length) {
        fx.store.updateScore({ turn_id: turns[op.turn % turns.length]!, score: op.score, confidence: op.confidence, eval_id: `e${String(op.turn).padStart(6, '0')}`, pricing_version: null, min_eval_confidence: 0.5 }, CTX);
      } else if (op.kind === 'advance') fx.clock.advanceUs(op.days * DAY_US);
      else if (op.kind === 'evict') (op.maxRows % 2 ? other : fx.store).evict({ max_rows: op.maxRows });
      else if (op.kind === 'clear') fx.store.clear();
      // After every step, so incremental index updates are checked before a foreign write forces a reload.
      check(fx.store, pool, [1, 10], [true]);
    }
    for (const s of [fx.store, other]) check(s, [...pool, ...queries], [1, 3, 10, 100], [true, false]);
    // Eviction never strands a row: every outcome has its fingerprint, every fingerprint an outcome, every history row its outcome.
    if (!existsSync(fx.path)) return;
    const db = new Database(fx.path, { readonly: true });
    const orphans = db
      .prepare(
        `SELECT (SELECT COUNT(*) FROM outcomes o WHERE NOT EXISTS (SELECT 1 FROM fingerprints f WHERE f.id = o.fingerprint_id)),
                (SELECT COUNT(*) FROM fingerprints f WHERE NOT EXISTS (SELECT 1 FROM outcomes o WHERE o.fingerprint_id = f.id)),
                (SELECT COUNT(*) FROM outcome_score_history h WHERE NOT EXISTS
                   (SELECT 1 FROM outcomes o WHERE o.fingerprint_id = h.fingerprint_id AND o.primary_model = h.primary_model))`,
      )
      .raw()
      .get();
    db.close();
    expect(orphans).toEqual([0, 0, 0]);
    expect(fx.store.size().outcomes).toBeLessThanOrEqual(8);
    const ids = new Set(fx.store.fingerprints().map((f) => f.id));
    expect(new Set(fx.store.outcomes().map((o) => o.fingerprint_id))).toEqual(ids);
  } finally {
    fx.cleanup();
  }
}

describe('in-memory K-NN index', () => {
  it('answers findKNearest exactly like a brute-force scan of fingerprints()/outcomes(), and eviction strands nothing', () => {
    fc.assert(
      fc.property(fc.array(arbFeatures, { minLength: 1, maxLength: 6 }), fc.array(arbOp, { maxLength: 40 }), fc.array(arbFeatures, { maxLength: 2 }), run),
      { numRuns: 60 },
    );
  });

  it('does the same when a field has more than 32 distinct labels (multi-word bitsets)', () => {
    fc.assert(
      fc.property(fc.array(arbWideFeatures, { minLength: 1, maxLength: 12 }), fc.array(arbOp, { maxLength: 40 }), fc.array(arbWideFeatures, { maxLength: 2 }), run),
      { numRuns: 30 },
    );
  });
});

describe('K-NN ties', () => {
  it('breaks equal similarity by more samples, then fresher, then ids, wherever the rows sit', () => {
    const fx = makeStore();
    try {
      // Three fingerprints equally far from the query (each differs from it in one 10% field).
      const q = { ...features(), intent_tags: ['test'] };
      const a = { ...q, file_path_buckets: ['src'] };
      const b = { ...q, side_effect_classes: ['read'] };
      const c = { ...q, estimated_input_tokens_bucket: 1 };
      const rec = (f: StructuralFeatures, n: number) => {
        let id = '';
        for (let i = 0; i < n; i++) id = recordTurn(fx.store, f).fingerprint_id;
        return id;
      };
      const ids = [rec(a, 1), rec(b, 3), rec(c, 2)];
      const got = fx.store.findKNearest(q, 3);
      expect(new Set(got.map((n) => n.similarity)).size).toBe(1);
      expect(got.map((n) => n.fingerprint_id)).toEqual([ids[1], ids[2], ids[0]]);
      expect(fx.store.findKNearest(q, 1).map((n) => n.fingerprint_id)).toEqual([ids[1]]);
      fx.clock.advanceUs(1);
      rec(a, 2);
      // a now has 3 samples like b, and the fresher update.
      expect(fx.store.findKNearest(q, 1).map((n) => n.fingerprint_id)).toEqual([ids[0]]);
    } finally {
      fx.cleanup();
    }
  });
});
