import { Decimal } from 'decimal.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createLearnedScorer } from './learned-scoring.ts';
import { hashedTerms } from './prompt-model.ts';
import { PROMPT_TERMS_DIM } from './prompt-outcomes.ts';
import { createFeatureGenerator, HAIKU, SONNET } from './test-support/feature-fixtures.ts';
import { CTX, makeStore, type StoreFixture } from './test-support/store-fixtures.ts';
import type { PatternStore } from './pattern-store.ts';

const fixtures: StoreFixture[] = [];
afterEach(() => {
  for (const f of fixtures.splice(0)) f.cleanup();
});
const fixture = (): StoreFixture => {
  const f = makeStore();
  fixtures.push(f);
  return f;
};

const features = createFeatureGenerator(3)();
const record = (store: PatternStore, turn: string, text: string | undefined, model: string, score: number | null) =>
  store.record(
    { turn_id: turn, features, primary_model: model, success_score: score, cost_usd: new Decimal('0.002'), latency_ms: 1, pricing_version: 'p', ...(text !== undefined ? { prompt_text: text } : {}) },
    CTX,
  );

describe('the store keeps one prompt row per recorded turn (scoring: learned)', () => {
  it('stores the hashed words, not the text, for scored turns; a turn without its text adds no row', () => {
    const { store } = fixture();
    record(store, 't1', 'Prove the theorem', SONNET, 1);
    record(store, 't2', undefined, HAIKU, 0);
    const rows = store.promptOutcomes!();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ model: SONNET, score: 1, chars: 17, cost_usd: 0.002 });
    expect(rows[0]!.terms).toEqual(hashedTerms('Prove the theorem', PROMPT_TERMS_DIM));
    // A repeated turn_id is a no-op, as record is.
    record(store, 't1', 'Prove the theorem', SONNET, 1);
    expect(store.promptOutcomes!()).toHaveLength(1);
  });

  it('a turn recorded before its verdict trains only once updateScore folds the score; another connection sees it; clear empties it', () => {
    const f = fixture();
    record(f.store, 't1', 'Spell the word', HAIKU, null);
    expect(f.store.promptOutcomes!()).toHaveLength(0);
    f.store.updateScore({ turn_id: 't1', score: 0.75, confidence: 1, eval_id: '01J00000000000000000000001', pricing_version: null, min_eval_confidence: 0.5 }, CTX);
    expect(f.store.promptOutcomes!().map((r) => r.score)).toEqual([0.75]);
    const other = f.reopen();
    expect(other.promptOutcomes!().map((r) => r.score)).toEqual([0.75]);
    f.store.clear();
    expect(f.store.promptOutcomes!()).toHaveLength(0);
  });

  it('the learned scorer over a store abstains when it is empty and answers once it holds rows', () => {
    const { store } = fixture();
    const scorer = createLearnedScorer(store);
    const opts = { cost_weight: 0, min_confidence: 0, min_sample_size: 1 };
    expect(scorer.score(scorer.predict('Prove the theorem', null), opts).chosen_model).toBeNull();
    for (let i = 0; i < 6; i++) {
      record(store, `s${i}`, `Prove the theorem number ${i}`, SONNET, 1);
      record(store, `h${i}`, `Prove the theorem number ${i}`, HAIKU, 0);
    }
    expect(scorer.score(scorer.predict('Prove the theorem number 9', null), opts).chosen_model).toBe(SONNET);
  });
});
