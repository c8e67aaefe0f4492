// SimilarityCalculator (semantic-cache-phase2.md §3): the cosine the cache's decisions are stated in.
// A thin face over the one cosine the runtime has (patterns/similarity-v2.ts); the Tier 2 index scores
// its rows with its own SIMD dot products over unit vectors, which equal this cosine.
import { cosine } from '../patterns/similarity-v2.ts';

type Vector = Float32Array | readonly number[];

/**
 * Cosine of `a` and `b` in [-1, 1]; a RangeError naming both lengths when they differ. A zero vector has
 * no direction, so it is like nothing: its cosine with anything is 0 (not an error, not NaN).
 */
export function cosineSimilarity(a: Vector, b: Vector): number {
  return cosine(a, b);
}

/** The cosine of `query` with each candidate, in candidate order; one mismatched length fails the batch. */
export function batchSimilarity(query: Vector, candidates: readonly Vector[]): number[] {
  return candidates.map((c) => cosine(query, c));
}

/** The spec's test: a similarity at or above the threshold passes (NaN never does). */
export function aboveThreshold(similarity: number, threshold: number): boolean {
  return similarity >= threshold;
}
