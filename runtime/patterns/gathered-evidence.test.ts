// A store answers a repeated query of an unchanged index from the evidence it gathered (one K-NN per
// structural shape between two writes), and gathers afresh after any write.
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { createVirtualClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { openMemoryPatternStore } from './memory-pattern-store.ts';
import type { StructuralFeatures } from './structural-features.ts';

const features = (bucket: number, workload: string): StructuralFeatures => ({
  file_extensions: [], file_path_buckets: [], tool_names: [], side_effect_classes: [], has_images: false, has_tool_calls_in_history: false,
  estimated_input_tokens_bucket: bucket, intent_tags: [], workspace_hash: `ws-${workload}`, workload_id: workload,
});
const opts = { cost_weight: 0.1, min_confidence: 0, min_sample_size: 0, k: 10, scoring: 'similarity_weighted' as const };

describe('gathered evidence', () => {
  it('is shared by equal queries between writes, and gathered again after a write', () => {
    const clock = createVirtualClock(1_700_000_000_000_000);
    const store = openMemoryPatternStore(':memory:', { logger: createMemoryLogger(), clock });
    const fresh = openMemoryPatternStore(':memory:', { logger: createMemoryLogger(), clock });
    let n = 0;
    const record = (f: StructuralFeatures, model: string, score: number) => {
      for (const s of [store, fresh]) s.record({ turn_id: `t${++n}`, features: f, primary_model: model, success_score: score, cost_usd: new Decimal('0.002'), latency_ms: 0, pricing_version: 'p' }, { session_id: 's', turn_id: `t${n}`, parent_event_id: null });
    };
    record(features(0, 'a'), 'cheap', 1);
    const first = store.evidence!(features(0, 'a'), opts);
    expect(store.evidence!({ ...features(0, 'a') }, opts).nearest).toBe(first.nearest);
    expect(store.recommend(features(0, 'a'), opts).alternatives.map((a) => a.model)).toEqual(['cheap']);
    // Another shape is its own query.
    expect(store.evidence!(features(1, 'a'), opts).nearest).not.toBe(first.nearest);
    record(features(0, 'a'), 'strong', 0);
    const after = store.evidence!(features(0, 'a'), opts);
    expect(after.nearest).not.toBe(first.nearest);
    // The same rows as a store that never answered the query before the write (ids are each store's own).
    const rows = (ns: readonly { fingerprint_id: string }[]) => ns.map(({ fingerprint_id: _id, ...rest }) => rest);
    expect(rows(after.nearest)).toEqual(rows(fresh.evidence!(features(0, 'a'), opts).nearest));
    expect(rows(after.nearest).map((r) => (r as { primary_model: string }).primary_model).sort()).toEqual(['cheap', 'strong']);
    expect(store.recommend(features(0, 'a'), opts).chosen_model).toBe('cheap');
    store.close();
    fresh.close();
  });
});
