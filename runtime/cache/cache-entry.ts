// One cached answer, whichever tier holds it.
import type { CanonicalResponse } from '../types/response.ts';
import type { EntryThresholdState } from './threshold-tuner.ts';

export type CacheTier = 'exact' | 'semantic' | 'intermediate';

export interface CacheEntry {
  id: string;
  tier: CacheTier;
  /** Tier 1: the exact request key; tier 2: the partition key; tier 3: the composite step key. */
  key: string;
  /** The query text the entry answers (tier 2 embeds it). */
  query: string;
  task_type: string;
  response: CanonicalResponse;
  /** What computing the answer cost, USD as a decimal string (what a hit saves). */
  cost_usd: string;
  created_us: number;
  last_used_us: number;
  hits: number;
  /** Tier 2 only: the learned per-entry threshold state. */
  threshold: EntryThresholdState;
}

/** True when a response is a final answer the cache may keep: no tool call, a normal end. */
export function isCacheableResponse(response: CanonicalResponse): boolean {
  return response.stop_reason === 'end_turn' && response.content.every((b) => b.type === 'text');
}
