import type { StructuralFeatures } from './structural-features.ts';

/** §5.3 weights in whole percent; the arithmetic runs on these so identical features score exactly 1. */
const WEIGHT_PCT = {
  intent_tags: 30,
  file_extensions: 20,
  tool_names: 15,
  file_path_buckets: 10,
  side_effect_classes: 10,
  estimated_input_tokens_bucket: 10,
  has_images: 5,
} as const;

/** The weighted-Jaccard weights of pattern-store.md §5.3, by feature; they sum to 1. */
export const SIMILARITY_WEIGHTS: Readonly<Record<string, number>> = Object.freeze(
  Object.fromEntries(Object.entries(WEIGHT_PCT).map(([k, pct]) => [k, pct / 100])),
);

/** Share of the same-workload signal when both sides carry a workload_id (§5.3 blend). */
export const WORKLOAD_BLEND_PCT = 85;

/** Jaccard of two label sets: both empty → 1, one empty → 0. Shared by the index so both agree bit for bit. */
export function jaccardFromCounts(intersection: number, sizeA: number, sizeB: number): number {
  const union = sizeA + sizeB - intersection;
  return union === 0 ? 1 : intersection / union;
}

function jaccard(a: readonly string[], b: readonly string[]): number {
  const setA = new Set(a);
  const setB = new Set(b);
  let inter = 0;
  for (const x of setA) if (setB.has(x)) inter++;
  return jaccardFromCounts(inter, setA.size, setB.size);
}

/**
 * Combines the per-feature terms into the §5.3 score, optionally blended with workload equality.
 * `sameWorkload` null means the blend does not apply (either side lacks a workload_id, or it is off).
 */
export function combineSimilarity(
  jIntent: number,
  jExtensions: number,
  jTools: number,
  jBuckets: number,
  jEffects: number,
  sameTokenBucket: boolean,
  sameImages: boolean,
  sameWorkload: boolean | null,
): number {
  const pct =
    WEIGHT_PCT.intent_tags * jIntent +
    WEIGHT_PCT.file_extensions * jExtensions +
    WEIGHT_PCT.tool_names * jTools +
    WEIGHT_PCT.file_path_buckets * jBuckets +
    WEIGHT_PCT.side_effect_classes * jEffects +
    (sameTokenBucket ? WEIGHT_PCT.estimated_input_tokens_bucket : 0) +
    (sameImages ? WEIGHT_PCT.has_images : 0);
  if (sameWorkload === null) return Math.min(1, pct / 100);
  return Math.min(1, ((sameWorkload ? WORKLOAD_BLEND_PCT * 100 : 0) + (100 - WORKLOAD_BLEND_PCT) * pct) / 10_000);
}

/** The v1 weighted Jaccard of §5.3; workspace_hash and workload_id take no part. In [0, 1], symmetric. */
export function structuralSimilarity(a: StructuralFeatures, b: StructuralFeatures): number {
  return similarity(a, b, { useWorkloadId: false });
}

/**
 * K-NN similarity: `0.85·[same workload] + 0.15·structural` when both sides carry a workload_id and
 * `useWorkloadId` (default true); otherwise exactly `structuralSimilarity` (§5.3).
 */
export function similarity(a: StructuralFeatures, b: StructuralFeatures, opts: { useWorkloadId?: boolean } = {}): number {
  const blend = (opts.useWorkloadId ?? true) && a.workload_id != null && b.workload_id != null;
  return combineSimilarity(
    jaccard(a.intent_tags, b.intent_tags),
    jaccard(a.file_extensions, b.file_extensions),
    jaccard(a.tool_names, b.tool_names),
    jaccard(a.file_path_buckets, b.file_path_buckets),
    jaccard(a.side_effect_classes, b.side_effect_classes),
    a.estimated_input_tokens_bucket === b.estimated_input_tokens_bucket,
    a.has_images === b.has_images,
    blend ? a.workload_id === b.workload_id : null,
  );
}
