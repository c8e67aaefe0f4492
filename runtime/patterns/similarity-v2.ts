// The v2 blended similarity (pattern-store.md §16.5): α·cosine + (1−α)·structural, then the §16.5.4 workload partition.
import { WORKLOAD_BLEND_PCT, structuralSimilarity } from './similarity.ts';
import type { StructuralFeatures } from './structural-features.ts';

/** Default α of §16.5 (embedding share of the blend). */
export const DEFAULT_EMBEDDING_ALPHA = 0.6;

/** A fingerprint as v2 compares it: structural features plus an optional embedding and its provider. */
export interface HybridFingerprint {
  structural: StructuralFeatures;
  embedding?: Float32Array | null;
  embedding_provider?: string | null;
}

/** Cosine of two vectors; dot product for the L2-normalised vectors providers return. RangeError on a dim mismatch. */
export function cosine(a: Float32Array | readonly number[], b: Float32Array | readonly number[]): number {
  if (a.length !== b.length) throw new RangeError(`cosine: dimension mismatch ${a.length} vs ${b.length}`);
  let d = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    d += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  // Norms taken apart: na * nb underflows to 0 for tiny nonzero vectors (then 0/0 = NaN); the clamp keeps
  // rounding from leaving [-1, 1].
  const den = Math.sqrt(na) * Math.sqrt(nb);
  return den === 0 ? 0 : Math.max(-1, Math.min(1, d / den));
}

/** True when both sides carry comparable embeddings (same provider and dim); otherwise §16.5.3 falls back. */
export function embeddingsComparable(a: HybridFingerprint, b: HybridFingerprint): boolean {
  return !!a.embedding && !!b.embedding && a.embedding.length === b.embedding.length && (a.embedding_provider ?? null) === (b.embedding_provider ?? null);
}

/** §16.5.0 blend from its two parts; α outside [0, 1] is a RangeError. */
export function blendScores(cos: number, structural: number, alpha: number): number {
  if (!(alpha >= 0 && alpha <= 1)) throw new RangeError(`alpha must be in [0, 1], got ${alpha}`);
  return alpha * cos + (1 - alpha) * structural;
}

/** §16.5.4 partition of a base score, for a pair that both carry a workload_id. */
export function partitionScore(base: number, sameWorkload: boolean): number {
  const w = WORKLOAD_BLEND_PCT / 100;
  return w * (sameWorkload ? 1 : 0) + (1 - w) * base;
}

/** §16.5.4 partition on top of a base score when both sides carry a workload_id. */
export function applyWorkloadPartition(base: number, a: StructuralFeatures, b: StructuralFeatures, useWorkloadId: boolean): number {
  if (!useWorkloadId || a.workload_id == null || b.workload_id == null) return base;
  return partitionScore(base, a.workload_id === b.workload_id);
}

/**
 * v2 similarity: blended when both embeddings are comparable, structural-only otherwise (mixed versions,
 * provider or dim mismatch), then the workload partition (`useWorkloadId` default true; tightness turns it off).
 */
export function similarityV2(a: HybridFingerprint, b: HybridFingerprint, opts: { alpha?: number; useWorkloadId?: boolean } = {}): number {
  const structural = structuralSimilarity(a.structural, b.structural);
  const base = embeddingsComparable(a, b) ? blendScores(cosine(a.embedding!, b.embedding!), structural, opts.alpha ?? DEFAULT_EMBEDDING_ALPHA) : structural;
  return applyWorkloadPartition(base, a.structural, b.structural, opts.useWorkloadId ?? true);
}
