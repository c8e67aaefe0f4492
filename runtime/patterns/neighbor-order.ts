/** The fields that order K-NN candidates after similarity. */
export interface NeighborTieKey {
  fingerprint_id: string;
  primary_model: string;
  sample_size: number;
  last_updated_at_us: number;
}

/**
 * The K-NN order, a total order so every reader picks the same K: similarity desc, then more
 * evidence (sample_size desc), then fresher (last update desc), then ids asc. Negative: `a` ranks first.
 */
export function compareNeighbors(simA: number, a: NeighborTieKey, simB: number, b: NeighborTieKey): number {
  if (simA !== simB) return simB - simA;
  if (a.sample_size !== b.sample_size) return b.sample_size - a.sample_size;
  if (a.last_updated_at_us !== b.last_updated_at_us) return b.last_updated_at_us - a.last_updated_at_us;
  if (a.fingerprint_id !== b.fingerprint_id) return a.fingerprint_id < b.fingerprint_id ? -1 : 1;
  if (a.primary_model !== b.primary_model) return a.primary_model < b.primary_model ? -1 : 1;
  return 0;
}

/**
 * The v2 blended K-NN order as first shipped (kept so results do not move): similarity desc, then
 * sample_size desc, then ids asc; unlike v1 it has no recency term. Negative: `a` ranks first.
 */
export function compareBlendedNeighbors(simA: number, a: NeighborTieKey, simB: number, b: NeighborTieKey): number {
  if (simA !== simB) return simB - simA;
  if (a.sample_size !== b.sample_size) return b.sample_size - a.sample_size;
  if (a.fingerprint_id !== b.fingerprint_id) return a.fingerprint_id < b.fingerprint_id ? -1 : 1;
  if (a.primary_model !== b.primary_model) return a.primary_model < b.primary_model ? -1 : 1;
  return 0;
}
