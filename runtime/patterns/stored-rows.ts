// Database rows → the store's public shapes and the index's entries.
import { outcomeState, type IndexedOutcomeState } from './feature-index.ts';
import type { FingerprintRow, OutcomeRow } from './pattern-db.ts';
import type { StoredFingerprint, StoredOutcome } from './pattern-store.ts';
import { normalizeFeatures, type StructuralFeatures } from './structural-features.ts';

/** The features of a stored row, normalized (rows written before `workload_id` existed read as null). */
export function featuresOfRow(row: FingerprintRow): StructuralFeatures {
  return normalizeFeatures(JSON.parse(row.structural_json) as StructuralFeatures);
}

/** A fingerprints row as the public `StoredFingerprint`. */
export function storedFingerprint(row: FingerprintRow): StoredFingerprint {
  return { id: row.id, kind: 'structural', structural: featuresOfRow(row), created_at_us: row.created_at_us };
}

/** An outcomes row as the index keeps it: means worked out once per write (the cost at its first read, see outcomeState), not per query. */
export function indexedOutcome(row: OutcomeRow): IndexedOutcomeState {
  return outcomeState(row, row.sample_size > 0 ? row.sum_latency_ms / row.sample_size : 0);
}

/** An outcomes row as the public `StoredOutcome`. */
export function storedOutcome(row: OutcomeRow): StoredOutcome {
  const { fingerprint_id, primary_model, sample_size, success_score_mean, success_score_count, avg_cost_usd, avg_latency_ms, last_updated_at_us } =
    indexedOutcome(row);
  return {
    fingerprint_id,
    primary_model,
    sample_size,
    success_score_mean,
    success_score_count,
    avg_cost_usd,
    avg_latency_ms,
    pricing_version_last: row.pricing_version_last,
    last_updated_at_us,
  };
}
