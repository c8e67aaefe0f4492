// The two writes of the learning loop (pattern-store.md §10.4), each run inside the caller's
// BEGIN IMMEDIATE transaction so it reads and writes one consistent state of the file.
import { evictOutcomes, US_PER_DAY, type EvictionResult } from './eviction.ts';
import type { FingerprintRow, OutcomeRow, PatternTables } from './pattern-db.ts';
import type { PatternCaps, RecordInput, RecordResult, UpdateScoreInput } from './pattern-store.ts';
import { welfordAdd, welfordRemove, type RunningMean } from './welford.ts';

/** Row counts of the two main tables. */
export interface TableCounts {
  fingerprints: number;
  outcomes: number;
}

/** Counts rows now. */
export function tableCounts(d: PatternTables): TableCounts {
  return { fingerprints: d.countFingerprints(), outcomes: d.countOutcomes() };
}

/** What `writeRecord` did. */
export interface RecordWrite {
  result: RecordResult;
  /** The outcome row as written; null when the turn had been recorded already (nothing written). */
  next: OutcomeRow | null;
  eviction: EvictionResult | null;
  /** Counts after the new row and before any eviction, and after eviction. */
  beforeCaps: TableCounts;
  afterCaps: TableCounts;
  /** The hard cap forced the eviction (rather than the soft-cap age trim). */
  hardCap: boolean;
}

/** The turn's outcome, already prepared by the caller: canonical features, signature, cost in micro-dollars. */
export interface PreparedRecord {
  input: RecordInput;
  structuralJson: string;
  sig: string;
  micros: bigint;
}

/**
 * Phase 1: folds one turn into its (fingerprint, model) accumulator, creating the fingerprint on
 * first sight, then applies the caps (§6): above hard, evict back to it; at or above soft, trim stale rows.
 */
export function writeRecord(d: PatternTables, rec: PreparedRecord, nowUs: number, newId: () => string, caps: PatternCaps): RecordWrite {
  const { input } = rec;
  const prior = d.history(input.turn_id);
  if (prior) {
    // At most once per turn (§11.3): a second Welford fold of the same turn would be wrong.
    const n = d.outcome(prior.fingerprint_id, prior.primary_model)?.sample_size ?? 0;
    const counts = tableCounts(d);
    const result: RecordResult = {
      fingerprint_id: prior.fingerprint_id,
      primary_model: prior.primary_model,
      sample_size_before: n,
      sample_size_after: n,
      was_new_fingerprint: false,
      over_soft_cap: counts.outcomes >= caps.soft_cap_rows,
      rows_auto_evicted: 0,
    };
    return { result, next: null, eviction: null, beforeCaps: counts, afterCaps: counts, hardCap: false };
  }
  let fp: FingerprintRow | undefined = d.fingerprintBySig(rec.sig);
  const wasNew = !fp;
  if (!fp) {
    fp = { id: newId(), kind: 'structural', structural_json: rec.structuralJson, structural_sig: rec.sig, created_at_us: nowUs };
    d.insertFingerprint(fp);
  }
  const row = d.outcome(fp.id, input.primary_model);
  const before = row?.sample_size ?? 0;
  let score: RunningMean = { count: row?.success_score_count ?? 0, mean: row?.success_score_mean ?? 0 };
  if (input.success_score !== null) score = welfordAdd(score, input.success_score);
  const next: OutcomeRow = {
    fingerprint_id: fp.id,
    primary_model: input.primary_model,
    sample_size: before + 1,
    success_score_mean: score.mean,
    success_score_count: score.count,
    sum_cost_usd_micros: (row?.sum_cost_usd_micros ?? 0n) + rec.micros,
    sum_latency_ms: (row?.sum_latency_ms ?? 0) + input.latency_ms,
    pricing_version_last: input.pricing_version,
    last_updated_at_us: nowUs,
  };
  d.upsertOutcome(next);
  d.putHistory({
    turn_id: input.turn_id,
    fingerprint_id: fp.id,
    primary_model: input.primary_model,
    eval_id_applied: null,
    score: input.success_score,
    confidence: null,
    folded: input.success_score === null ? 0 : 1,
    applied_at_us: nowUs,
  });
  const beforeCaps = tableCounts(d);
  const cutoff = nowUs - caps.max_age_days * US_PER_DAY;
  const hardCap = beforeCaps.outcomes > caps.hard_cap_rows;
  let eviction: EvictionResult | null = null;
  if (hardCap) eviction = evictOutcomes(d, nowUs, cutoff, caps.hard_cap_rows);
  else if (beforeCaps.outcomes >= caps.soft_cap_rows) eviction = evictOutcomes(d, nowUs, cutoff, null);
  const afterCaps = eviction?.outcomes.length ? tableCounts(d) : beforeCaps;
  const result: RecordResult = {
    fingerprint_id: fp.id,
    primary_model: input.primary_model,
    sample_size_before: before,
    sample_size_after: before + 1,
    was_new_fingerprint: wasNew,
    over_soft_cap: afterCaps.outcomes >= caps.soft_cap_rows,
    rows_auto_evicted: eviction?.outcomes.length ?? 0,
  };
  return { result, next, eviction, beforeCaps, afterCaps, hardCap };
}

/** What `writeVerdict` did. */
export interface VerdictWrite {
  result: RecordResult;
  /** The outcome row as written; null when the verdict was a repeat or older than the applied one. */
  next: OutcomeRow | null;
  /** The verdict's score is now part of the mean (it passed the confidence gate). */
  folded: boolean;
}

/**
 * Phase 2: applies a verdict for a recorded turn, or returns null for a turn never recorded (or evicted).
 * The greatest eval_id per turn wins: its predecessor's score is taken back out exactly, and the new
 * one folded in only at or above min_eval_confidence (kept in history either way, §15.4).
 */
export function writeVerdict(d: PatternTables, input: UpdateScoreInput, nowUs: number, caps: PatternCaps): VerdictWrite | null {
  const h = d.history(input.turn_id);
  if (!h) return null;
  // The history row's foreign key keeps its outcome row alive.
  const row = d.outcome(h.fingerprint_id, h.primary_model)!;
  const result: RecordResult = {
    fingerprint_id: h.fingerprint_id,
    primary_model: h.primary_model,
    sample_size_before: row.sample_size,
    sample_size_after: row.sample_size,
    was_new_fingerprint: false,
    over_soft_cap: d.countOutcomes() >= caps.soft_cap_rows,
    rows_auto_evicted: 0,
  };
  if (h.eval_id_applied !== null && input.eval_id <= h.eval_id_applied) return { result, next: null, folded: false };
  let score: RunningMean = { count: row.success_score_count, mean: row.success_score_mean };
  if (h.folded && h.score !== null) score = welfordRemove(score, h.score);
  const folded = input.confidence >= input.min_eval_confidence;
  if (folded) score = welfordAdd(score, input.score);
  // Versions are dated strings: a verdict priced under an older table does not move pricing back.
  const pricing = input.pricing_version !== null && input.pricing_version > row.pricing_version_last ? input.pricing_version : row.pricing_version_last;
  const next: OutcomeRow = { ...row, success_score_mean: score.mean, success_score_count: score.count, pricing_version_last: pricing, last_updated_at_us: nowUs };
  d.upsertOutcome(next);
  d.putHistory({ ...h, eval_id_applied: input.eval_id, score: input.score, confidence: input.confidence, folded: folded ? 1 : 0, applied_at_us: nowUs });
  return { result, next, folded };
}
