import type { OutcomeKey, PatternTables } from './pattern-db.ts';

/** Microseconds in a day. */
export const US_PER_DAY = 86_400_000_000;

/** What one eviction pass removed. */
export interface EvictionResult {
  outcomes: OutcomeKey[];
  fingerprints: string[];
  /** True when every removed row was past the age limit (an age trim, not cap pressure). */
  onlyStale: boolean;
  /** Age in days of the stalest removed row; null when nothing was removed. */
  oldestAgeDays: number | null;
}

/**
 * The §6.3 policy, run inside the caller's transaction so it is all-or-nothing: rows not updated
 * since `cutoffUs` first, then, while more than `maxRows` remain, least recently updated with the
 * smallest sample_size first. Fingerprints left without an outcome go too; score history cascades.
 */
export function evictOutcomes(db: PatternTables, nowUs: number, cutoffUs: number, maxRows: number | null): EvictionResult {
  const stale = db.staleOutcomes(cutoffUs);
  const remaining = db.countOutcomes() - stale.length;
  const overflow = maxRows === null ? 0 : Math.max(0, remaining - maxRows);
  const condemned = overflow > 0 ? [...stale, ...db.lruOutcomes(cutoffUs, overflow)] : stale;
  const touched = new Set<string>();
  for (const key of condemned) {
    db.deleteOutcome(key);
    touched.add(key.fingerprint_id);
  }
  const fingerprints = [...touched].filter((id) => db.deleteOrphan(id));
  const oldest = condemned.reduce<number | null>((min, k) => (min === null || k.last_updated_at_us < min ? k.last_updated_at_us : min), null);
  if (condemned.length) db.setMeta('last_eviction_at_us', String(nowUs));
  return {
    outcomes: condemned,
    fingerprints,
    onlyStale: overflow === 0,
    oldestAgeDays: oldest === null ? null : Math.max(0, nowUs - oldest) / US_PER_DAY,
  };
}
