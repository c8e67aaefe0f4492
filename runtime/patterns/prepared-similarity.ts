// Similarity of every pair of a list of fingerprints (cluster tightness scores n(n−1)/2 pairs): each label set
// is built once, as bits over the list's labels, so a pair's Jaccard terms are popcounts of ANDed words instead
// of two Sets built and walked per term. The same counts reach the same arithmetic, so the scores are
// `similarity`'s bit for bit.
import { popcount } from './label-bitsets.ts';
import { combineSimilarity, jaccardFromCounts } from './similarity.ts';
import type { StructuralFeatures } from './structural-features.ts';

/** The five set-valued features, in combineSimilarity's order. */
const SETS = ['intent_tags', 'file_extensions', 'tool_names', 'file_path_buckets', 'side_effect_classes'] as const;

/** A fingerprint of a prepared list: its features, and each label set as `words` 32-bit words and its size. */
export interface PreparedFeatures {
  readonly features: StructuralFeatures;
  /** The list it was prepared with (its labels' bits); only fingerprints of one list are compared. */
  readonly list: object;
  readonly words: number;
  readonly bits: Uint32Array;
  readonly sizes: readonly number[];
}

/** `list`'s fingerprints with their label sets as bits over the list's labels. */
export function prepareFeatureList(list: readonly StructuralFeatures[]): PreparedFeatures[] {
  const ids = new Map<string, number>();
  for (const f of list) for (const k of SETS) for (const l of f[k]) if (!ids.has(l)) ids.set(l, ids.size);
  const words = Math.max(1, Math.ceil(ids.size / 32));
  const tag = {};
  return list.map((features) => {
    const bits = new Uint32Array(SETS.length * words);
    SETS.forEach((k, s) => {
      for (const l of features[k]) {
        const id = ids.get(l)!;
        bits[s * words + (id >>> 5)]! |= 1 << (id & 31);
      }
    });
    const sizes = SETS.map((_, s) => count(bits, s * words, words));
    return { features, list: tag, words, bits, sizes };
  });
}

function count(bits: Uint32Array, from: number, words: number, other?: Uint32Array): number {
  let n = 0;
  for (let w = from; w < from + words; w++) n += popcount(other ? bits[w]! & other[w]! : bits[w]!);
  return n;
}

/** `similarity(a.features, b.features, opts)` of two fingerprints of one prepared list. */
export function preparedSimilarity(a: PreparedFeatures, b: PreparedFeatures, opts: { useWorkloadId?: boolean } = {}): number {
  if (a.list !== b.list) throw new Error('preparedSimilarity: the fingerprints come from different lists');
  const x = a.features;
  const y = b.features;
  const blend = (opts.useWorkloadId ?? true) && x.workload_id != null && y.workload_id != null;
  return combineSimilarity(setJaccard(a, b, 0), setJaccard(a, b, 1), setJaccard(a, b, 2), setJaccard(a, b, 3), setJaccard(a, b, 4), x.estimated_input_tokens_bucket === y.estimated_input_tokens_bucket, x.has_images === y.has_images, blend ? x.workload_id === y.workload_id : null);
}

// A function of its own, not a closure made per pair: cluster tightness asks n(n−1)/2 pairs, in code that runs once.
/** Jaccard of the `s`-th label set of two fingerprints of one prepared list. */
function setJaccard(a: PreparedFeatures, b: PreparedFeatures, s: number): number {
  return jaccardFromCounts(count(a.bits, s * a.words, a.words, b.bits), a.sizes[s]!, b.sizes[s]!);
}
