import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createSystemClock } from '../../runtime/core/clock.ts';
import { createMemoryLogger } from '../../runtime/core/logger.ts';
import { openPatternStore, type PatternStore, type StructuralFeatures } from '../../runtime/patterns/index.ts';
import { features, HAIKU, SONNET } from '../../runtime/patterns/test-support/feature-fixtures.ts';
import { seedWithout, snapshotSeed } from './holdout.ts';

const open: PatternStore[] = [];
afterEach(() => open.splice(0).forEach((s) => s.close()));
const newStore = () => {
  const s = openPatternStore(join(mkdtempSync(join(tmpdir(), 'holdout-')), 'p.db'), { logger: createMemoryLogger(), clock: createSystemClock(), bus: null });
  open.push(s);
  return s;
};
const OPTS = { cost_weight: 0.05, min_confidence: 0.05, min_sample_size: 1, k: 10 };
let turn = 0;
function seedTurns(store: PatternStore, f: StructuralFeatures, model: string, score: number, n: number, cost: string): void {
  for (let i = 0; i < n; i++) {
    const turn_id = `t${++turn}`;
    const ctx = { session_id: 's', turn_id, parent_event_id: null };
    store.record({ turn_id, features: f, primary_model: model, success_score: null, cost_usd: new Decimal(cost), latency_ms: 100 + i, pricing_version: 'p1' }, ctx);
    store.updateScore({ turn_id, score, confidence: 1, eval_id: `e${turn}`, pricing_version: null, min_eval_confidence: 0 }, ctx);
  }
}

// Workload "own": sonnet solves its turns, haiku fails them. Workload "other": a different shape where haiku does as well.
const OWN = features({ file_extensions: ['.py'], tool_names: ['edit_file', 'read_file'], intent_tags: ['fix'], workload_id: 'own', workspace_hash: 'h-own' });
const OTHER = features({ file_extensions: ['.md'], tool_names: ['write_file'], intent_tags: ['docs'], workload_id: 'other', workspace_hash: 'h-other' });

function mainStore(): PatternStore {
  const s = newStore();
  seedTurns(s, OWN, SONNET, 1, 6, '0.03');
  seedTurns(s, OWN, HAIKU, 0, 6, '0.01');
  seedTurns(s, OTHER, SONNET, 1, 4, '0.03');
  seedTurns(s, OTHER, HAIKU, 1, 4, '0.01');
  return s;
}

describe('holdout store (leave one workload out)', () => {
  it('a workload\'s own outcomes never reach its own routing: the full store routes it to sonnet, its holdout store does not', () => {
    const main = mainStore();
    const query = { ...OWN, workload_id: null };
    // In sample, its own outcomes decide: sonnet.
    expect(main.recommend(query, OPTS).chosen_model).toBe(SONNET);
    const seed = snapshotSeed(main);
    const held = newStore();
    expect(seedWithout(held, seed, 'own')).toEqual({ outcomes: 2, skipped: 2 });
    // Only the other workload's evidence is left, where haiku is as good and cheaper.
    expect(held.recommend(query, OPTS).chosen_model).toBe(HAIKU);
    expect(held.fingerprints().every((f) => f.structural.workload_id === null)).toBe(true);
    expect(held.fingerprints().map((f) => f.structural.workspace_hash)).toEqual(['h-other']);
  });

  it('keeps the other workloads\' accumulators: sample sizes, score counts, means and mean costs', () => {
    const main = newStore();
    seedTurns(main, OTHER, HAIKU, 1, 3, '0.01');
    seedTurns(main, OTHER, HAIKU, 0, 2, '0.02');
    const held = newStore();
    seedWithout(held, snapshotSeed(main), 'own');
    const [before] = main.outcomes();
    const [after] = held.outcomes();
    expect(after).toMatchObject({ primary_model: HAIKU, sample_size: before!.sample_size, success_score_count: before!.success_score_count });
    expect(after!.success_score_mean).toBeCloseTo(before!.success_score_mean, 12);
    expect(after!.avg_cost_usd.toNumber()).toBeCloseTo(before!.avg_cost_usd.toNumber(), 9);
    expect(after!.avg_latency_ms).toBeCloseTo(before!.avg_latency_ms, 9);
  });

  it('an empty seed, or one with only the held-out workload, leaves the store empty (slot 4 then has nothing to say)', () => {
    const main = newStore();
    seedTurns(main, OWN, SONNET, 1, 3, '0.03');
    const held = newStore();
    expect(seedWithout(held, snapshotSeed(main), 'own')).toEqual({ outcomes: 0, skipped: 1 });
    expect(held.size().outcomes).toBe(0);
    expect(held.recommend({ ...OWN, workload_id: null }, OPTS).chosen_model).toBeNull();
  });
});
