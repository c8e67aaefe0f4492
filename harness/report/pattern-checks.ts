import { DEFAULT_EMBEDDING_ALPHA, prepareFeatureList, preparedSimilarity, similarityV2, type HybridFingerprint, type PatternFingerprints, type PatternStore, type PreparedFeatures, type StoredFingerprint } from '../../runtime/patterns/index.ts';
import type { FingerprintSource } from './protocol-metrics.ts';
import type { WorkloadRunRecord } from '../runs/run-store.ts';

/**
 * The accumulation check of benchmark.md §6.4: after seeding, the shared store must hold at least
 * one sample per recorded turn for each (workload, model), and at least N for the cluster. Fewer
 * means the recording path dropped outcomes silently — reported, never ignored.
 */
export function accumulationErrors(store: PatternStore, records: readonly WorkloadRunRecord[], seedPasses: number): string[] {
  const workloadOf = new Map(store.fingerprints().map((f) => [f.id, f.structural.workload_id]));
  const held = new Map<string, number>();
  for (const o of store.outcomes()) {
    const key = `${workloadOf.get(o.fingerprint_id) ?? ''}\u0000${o.primary_model}`;
    held.set(key, (held.get(key) ?? 0) + o.sample_size);
  }
  const expected = new Map<string, { workload: string; model: string; pass: string; turns: number }>();
  for (const r of records) {
    const key = `${r.workload}\u0000${r.model}`;
    const e = expected.get(key) ?? { workload: r.workload, model: r.model, pass: r.pass, turns: 0 };
    e.turns += r.turns;
    expected.set(key, e);
  }
  const errors: string[] = [];
  for (const [key, e] of expected) {
    const have = held.get(key) ?? 0;
    const need = Math.max(seedPasses, e.turns);
    if (have < need)
      errors.push(`recording-path error: after pass ${e.pass}, ${e.workload} on ${e.model} has ${have} samples in the pattern store, expected at least ${need} (${e.turns} turns recorded over ${seedPasses} rep(s))`);
  }
  return errors;
}

/**
 * A store's fingerprints for cluster tightness, compared with the workload-id partition switched off (spec §8.3).
 * Tightness scores every pair, so each fingerprint's label sets are built once (as bits), not once per pair.
 */
export function fingerprintSource(fingerprints: readonly StoredFingerprint[]): FingerprintSource<PreparedFeatures> {
  const prepared = prepareFeatureList(fingerprints.map((f) => f.structural));
  return {
    items: prepared.map((p) => ({ workload: p.features.workload_id, value: p })),
    similarity: (a, b) => preparedSimilarity(a, b, { useWorkloadId: false }),
  };
}

/**
 * The v2 view of the same fingerprints (pattern-store.md §16.10 test 5): blended cosine + structural
 * where both carry the provider's embedding, structural otherwise, workload partition off.
 */
export function fingerprintSourceV2(fingerprints: readonly StoredFingerprint[], embeddings: NonNullable<PatternFingerprints['embeddings']>, alpha: number): FingerprintSource<HybridFingerprint> {
  return {
    items: fingerprints.map((f) => {
      const embedding = embeddings.of(f.id);
      return { workload: f.structural.workload_id, value: { structural: f.structural, embedding, embedding_provider: embedding ? embeddings.provider : null } };
    }),
    similarity: (a, b) => similarityV2(a, b, { alpha, useWorkloadId: false }),
  };
}

/** Both tightness views for the report: v1 always, v2 when the fingerprints carry a v2 store's embeddings. */
export function reportFingerprintSources(read: PatternFingerprints, alpha: number | null | undefined) {
  return { fingerprints: fingerprintSource(read.fingerprints), fingerprintsV2: read.embeddings ? fingerprintSourceV2(read.fingerprints, read.embeddings, alpha ?? DEFAULT_EMBEDDING_ALPHA) : null };
}
