import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { PatternStore } from './index.ts';
import { createFeatureGenerator, HAIKU, SONNET } from './test-support/feature-fixtures.ts';
import { makeStore, recordTurn, type StoreFixture } from './test-support/store-fixtures.ts';

const fixtures: StoreFixture[] = [];
function fixture(): StoreFixture {
  const f = makeStore();
  fixtures.push(f);
  return f;
}
afterEach(() => {
  for (const f of fixtures.splice(0)) f.cleanup();
});

const NO_GATES = { cost_weight: 0, min_confidence: 0, min_sample_size: 0 };

/** 60 turns over 12 shapes and two models, the same list each call. */
function seedTurns(): { features: ReturnType<ReturnType<typeof createFeatureGenerator>>; model: string; score: number; turn: string }[] {
  const gen = createFeatureGenerator(7);
  const shapes = Array.from({ length: 12 }, () => gen());
  return Array.from({ length: 60 }, (_, i) => ({ features: shapes[i % 12]!, model: i % 5 === 0 ? SONNET : HAIKU, score: (i * 37) % 11 / 10, turn: `turn-${i}` }));
}

/** What a store holds and answers, timestamps and generated ids left out. */
function snapshot(store: PatternStore) {
  const turns = seedTurns();
  const sigOf = new Map(store.fingerprints().map((f) => [f.id, JSON.stringify(f.structural)]));
  return {
    outcomes: store
      .outcomes()
      .map((o) => ({ fp: sigOf.get(o.fingerprint_id), model: o.primary_model, n: o.sample_size, mean: o.success_score_mean, cost: o.avg_cost_usd.toString() }))
      .sort((a, b) => `${a.fp}${a.model}`.localeCompare(`${b.fp}${b.model}`)),
    recommendations: turns.slice(0, 12).map((t) => {
      const r = store.recommend(t.features, NO_GATES);
      return { chosen: r.chosen_model, confidence: r.confidence, alternatives: r.alternatives, sample_size: r.sample_size };
    }),
    nearest: store.findKNearest(turns[0]!.features, 5).map((n) => ({ sim: n.similarity, model: n.primary_model, n: n.sample_size, mean: n.success_score_mean })),
  };
}

const recordAll = (store: PatternStore) => {
  for (const t of seedTurns()) recordTurn(store, t.features, { model: t.model, score: t.score, turn: t.turn });
};

describe('batch: many records committed as one write transaction', () => {
  it('stores and answers exactly what the same records made one by one do', async () => {
    const plain = fixture();
    const batched = fixture();
    recordAll(plain.store);
    await batched.store.batch(async () => {
      await Promise.resolve();
      recordAll(batched.store);
    });
    expect(snapshot(batched.store)).toEqual(snapshot(plain.store));
    expect(batched.store.size().outcomes).toBeGreaterThan(12);
    // The bus saw the same record events, in the same order.
    expect(batched.events.map((e) => e.type)).toEqual(plain.events.map((e) => e.type));
  });

  it('commits once, at the end: another connection sees nothing while the body runs, everything after', async () => {
    const fx = fixture();
    recordTurn(fx.store, seedTurns()[0]!.features, { turn: 'before' });
    const other = new Database(fx.path, { readonly: true });
    const count = () => other.prepare('SELECT COUNT(*) FROM outcome_score_history').pluck().get();
    let during = -1;
    await fx.store.batch(async () => {
      recordAll(fx.store);
      await Promise.resolve();
      during = count() as number;
    });
    expect(during).toBe(1);
    expect(count()).toBe(61);
    other.close();
  });

  it('rolls the whole batch back when the body throws, and the store reads the file again', async () => {
    const fx = fixture();
    recordTurn(fx.store, seedTurns()[0]!.features, { turn: 'kept', model: SONNET, score: 1 });
    const before = snapshot(fx.store);
    await expect(
      fx.store.batch(async () => {
        recordAll(fx.store);
        await Promise.resolve();
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(snapshot(fx.store)).toEqual(before);
    expect(fx.store.size().outcomes).toBe(1);
    // Still usable afterwards, in or out of a batch.
    await fx.store.batch(async () => void recordTurn(fx.store, seedTurns()[1]!.features, { turn: 'after' }));
    expect(fx.store.size().outcomes).toBe(2);
  });

  it('a nested batch joins the outer one (one commit), and a closed store runs the body as is', async () => {
    const fx = fixture();
    await fx.store.batch(() => fx.store.batch(async () => void recordAll(fx.store)));
    expect(fx.store.outcomes().reduce((s, o) => s + o.sample_size, 0)).toBe(60);
    fx.store.close();
    await expect(fx.store.batch(async () => 'ran')).resolves.toBe('ran');
  });
});
