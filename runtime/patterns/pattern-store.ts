// The pattern store's contract (pattern-store.md §4): what the learning loop, routing slot 4 and
// the harness call. The SQLite implementation is sqlite-pattern-store.ts.
import type { Decimal } from 'decimal.js';
import type { ModelEvidence, RegretBudget } from './expected-gain.ts';
import type { PromptOutcomeRow } from './prompt-model.ts';
import type { StructuralFeatures } from './structural-features.ts';

/** Per-store caps (§4 PatternCaps, §6). */
export interface PatternCaps {
  /** At or above this many outcome rows a write emits pattern.evicted `soft_cap_signal` and age-trims. */
  soft_cap_rows: number;
  /** Above this many outcome rows a write evicts (age first, then LRU) back down to it. */
  hard_cap_rows: number;
  /** Rows not updated for this long are evicted first. */
  max_age_days: number;
}

/** Defaults of §4: 5,000 / 10,000 rows, 180 days. */
export const DEFAULT_PATTERN_CAPS: Readonly<PatternCaps> = Object.freeze({ soft_cap_rows: 5_000, hard_cap_rows: 10_000, max_age_days: 180 });

/** Envelope fields for the events a store call emits. */
export interface EventContext {
  session_id: string;
  turn_id: string | null;
  parent_event_id: string | null;
}

/** What `record` / `updateScore` did (§4 RecordResult). */
export interface RecordResult {
  fingerprint_id: string;
  primary_model: string;
  sample_size_before: number;
  sample_size_after: number;
  was_new_fingerprint: boolean;
  /** Outcome rows >= soft_cap_rows after this write. */
  over_soft_cap: boolean;
  /** Outcome rows removed by the cap / age policy during this write. */
  rows_auto_evicted: number;
}

/** One model of the K-cluster, scored per §8.3 (same shape as route.decided's pattern_alternatives, plus detail). */
export interface ModelOption {
  model: string;
  score: number;
  /** Samples behind this model in the cluster (sum of its neighbours' sample_size). */
  sample_size: number;
  /** Decimal text: sample-weighted mean cost per turn in the cluster. */
  avg_cost_usd: string;
  /** Score-count-weighted mean success in the cluster. */
  success_score_mean: number;
}

/** What `recommend` answers (§4 PatternRecommendation). */
export interface PatternRecommendation {
  /** Null when there is no recommendation (empty store, or a confidence / sample-size gate held). */
  chosen_model: string | null;
  /** (top score − runner-up) / top score; reported even when a gate held the recommendation back. */
  confidence: number;
  /** Every scored model, best first, also when chosen_model is null. */
  alternatives: ModelOption[];
  /** Samples behind the top-scored model. */
  sample_size: number;
  /** Neighbours found (≤ K). */
  k_cluster_size: number;
  /** The stored fingerprint matching the query exactly, if any. */
  fingerprint_id: string | null;
  elapsed_ms: number;
  /** The K-cluster's rows as scored (after the min_similarity floor, so length = k_cluster_size), nearest first; absent on an empty answer. */
  neighbors?: NeighborSummary[];
}

/** One neighbour row of a recommendation, as pattern.matched reports it. */
export interface NeighborSummary {
  fingerprint_id: string;
  primary_model: string;
  /** Rounded to 4 decimals. */
  similarity: number;
  sample_size: number;
  success_score_mean: number;
}

/** One outcome row near a query (§8.2): K counts outcomes, not fingerprints. */
export interface NeighborMatch {
  fingerprint_id: string;
  primary_model: string;
  similarity: number;
  sample_size: number;
  success_score_mean: number;
  success_score_count: number;
  avg_cost_usd: Decimal;
  avg_latency_ms: number;
}

/** A fingerprint row as stored. */
export interface StoredFingerprint {
  id: string;
  kind: 'structural';
  structural: StructuralFeatures;
  created_at_us: number;
}

/** An outcome accumulator row as stored (§4 Outcome). */
export interface StoredOutcome {
  fingerprint_id: string;
  primary_model: string;
  sample_size: number;
  success_score_mean: number;
  success_score_count: number;
  avg_cost_usd: Decimal;
  avg_latency_ms: number;
  pricing_version_last: string;
  last_updated_at_us: number;
}

/** The knobs of §8.1 / §9.4 (resolved from routing.yaml by the caller). */
export interface RecommendOptions {
  cost_weight: number;
  min_confidence: number;
  min_sample_size: number;
  /** Neighbours to consider; default 10. */
  k?: number;
  /** How neighbours weigh in each model's means: `uniform` (§8.3-8.4; when omitted), `similarity_weighted` (routing.yaml's default) or `expected_gain` (hierarchical P(solve) and a cost-aware choice, expected-gain.ts; needs the store's priors). */
  scoring?: ClusterScoring;
  /** Neighbours below this similarity leave the cluster before scoring; omitted = 0 (none leave; routing.yaml's default is 0.5). */
  min_similarity?: number;
  /** `expected_gain` only: `thompson` draws each model's P(solve) from its posterior (needs `random`); default none. */
  exploration?: PatternExploration;
  /** Uniform draws in [0, 1) for exploration (a seeded PRNG in the harness). */
  random?: () => number;
  /** The models routing may choose (exploration tries those the store has never seen). */
  candidates?: readonly string[];
  /** `thompson` only: the expected regret exploration may still spend (pattern.exploration_regret_budget); absent = unbounded. */
  regret_budget?: RegretBudget;
}

/**
 * What a recommendation is computed from, before any scoring knob applies (the evidence half of
 * `recommend`): the K nearest outcome rows, the store's per-model totals when the scoring needs them, and
 * the exact-match fingerprint. `scoreEvidence(evidence, opts)` (cluster-scoring.ts) turns it into the
 * recommendation `recommend` would give with the same `opts`, so a caller that scores one turn at many
 * knob values (a cost_weight sweep) searches the neighbours once. Depends only on `k` and whether the
 * scoring is `expected_gain` (see `evidenceKey`); every other option applies at scoring time.
 */
export interface RecommendEvidence {
  /** The K-NN answer, nearest first (unfiltered: min_similarity applies at scoring). */
  nearest: readonly NeighborMatch[];
  /** expected_gain's priors; undefined for the other scorings. */
  priors: ModelPriors | undefined;
  fingerprint_id: string | null;
  /** Time spent gathering, added to each recommendation's elapsed_ms. */
  elapsed_ms: number;
  /** True when the store could not be read: every score of it is the empty recommendation. */
  failed: boolean;
}

/** What `expected_gain` scoring shrinks toward: the store-wide evidence per model and the turn's workspace's (null without a workspace). */
export interface ModelPriors {
  global: readonly ModelEvidence[];
  workspace: readonly ModelEvidence[] | null;
}

/** The options evidence depends on (a subset of RecommendOptions). */
export type EvidenceOptions = Pick<RecommendOptions, 'k' | 'scoring'>;

/** routing.yaml pattern.exploration. */
export type PatternExploration = 'none' | 'thompson';

/** routing.yaml pattern.scoring. */
export type ClusterScoring = 'uniform' | 'similarity_weighted' | 'expected_gain' | 'learned';

/** One turn's outcome for `record` (§10.4 phase 1). */
export interface RecordInput {
  turn_id: string;
  features: StructuralFeatures;
  primary_model: string;
  /** Usually null at session end; the verdict arrives later through `updateScore`. */
  success_score: number | null;
  cost_usd: Decimal;
  latency_ms: number;
  pricing_version: string;
  /** The turn's user message: with it the store keeps the task's hashed-word vector beside the outcome (`learned` scoring's training row). */
  prompt_text?: string;
}

/** A late verdict for `updateScore` (§10.4 phase 2). */
export interface UpdateScoreInput {
  turn_id: string;
  score: number;
  confidence: number;
  /** ULID; the greatest eval_id seen for a turn is its latest verdict. */
  eval_id: string;
  /** Replaces pricing_version_last when it sorts after it. */
  pricing_version: string | null;
  min_eval_confidence: number;
}

/** Options of `findKNearest`. */
export interface KNearestOptions {
  /** Apply the §5.3 workload blend (default true); cluster-tightness metrics switch it off. */
  useWorkloadId?: boolean;
}

/** Options of `evict`. */
export interface EvictOptions {
  /** Keep at most this many outcome rows (default: hard_cap_rows). */
  max_rows?: number;
  /** Remove rows not updated for this many days (default: max_age_days). */
  older_than_days?: number;
}

/** Row counts of the store (`/patterns status`). */
export interface PatternStoreSize {
  fingerprints: number;
  outcomes: number;
  oldest_updated_at_us: number | null;
}

/**
 * The per-workspace pattern store. Storage failures never escape: a missing file reads as empty,
 * an unreadable one makes reads empty and writes no-ops, each with a WARN log (§8.5, §9.3).
 * Invalid arguments (a score outside [0, 1], a negative cost) throw RangeError.
 */
export interface PatternStore {
  /** Records one turn's outcome (§5.4, §10.4 phase 1). At most once per turn_id (a repeat is a no-op returning the current state). Emits pattern.recorded (+ pattern.evicted on cap events) on the bus with `ctx`. */
  record(input: RecordInput, ctx: EventContext): RecordResult;
  /** §10.4 phase 2: idempotent by eval_id, latest (MAX eval_id) verdict wins with exact rollback of an earlier applied score, min_eval_confidence gate (recorded in history, not folded). Unknown turn → WARN, sample_size_after 0. Emits pattern.recorded for an applied score. */
  updateScore(input: UpdateScoreInput, ctx: EventContext): RecordResult;
  /** The k outcome rows most similar to `features`: similarity desc, then sample_size desc, last update desc, ids asc. */
  findKNearest(features: StructuralFeatures, k: number, opts?: KNearestOptions): NeighborMatch[];
  /** §8.3/§8.4 over the K-cluster; never throws: a corrupt/unreadable store → empty recommendation + WARN. */
  recommend(features: StructuralFeatures, opts: RecommendOptions): PatternRecommendation;
  /**
   * The evidence half of `recommend` (RecommendEvidence): `recommend(f, o)` equals `scoreEvidence(evidence(f, o), o)`.
   * Never throws, like `recommend`. Optional so stores written before the split still satisfy the interface.
   */
  evidence?(features: StructuralFeatures, opts: EvidenceOptions): RecommendEvidence;
  /** One row per recorded turn that carried `prompt_text` (the `learned` scoring's training data), in record order. Optional: older stores lack it. */
  promptOutcomes?(): readonly PromptOutcomeRow[];
  /** Every stored fingerprint, oldest first, read from the file (not the in-memory index). */
  fingerprints(): StoredFingerprint[];
  /** Every outcome row, by fingerprint id then model, read from the file. */
  outcomes(): StoredOutcome[];
  /** Row counts and the oldest last update. */
  size(): PatternStoreSize;
  /** Manual eviction (§6.3: age first, then LRU, then smallest sample_size), one transaction; returns outcome rows removed. Emits pattern.evicted when given `ctx` and rows went. */
  evict(opts?: EvictOptions, ctx?: EventContext): number;
  /** Deletes every row; returns outcome rows removed. Emits pattern.evicted `manual_clear` when given `ctx`. */
  clear(ctx?: EventContext): number;
  /**
   * Runs `body` (which may await) inside one write transaction of the file, so the many records it makes
   * commit once instead of once each; what is stored and read is the same as without it. A body that
   * throws rolls the whole batch back. Meant for one writer filling a fresh store (a matrix fold's seeding):
   * the transaction holds the file's write lock across the body's awaits. Nested calls join the outer batch.
   */
  batch<T>(body: () => Promise<T>): Promise<T>;
  /** Closes the file; later calls behave as on an unreadable store. Idempotent. */
  close(): void;
}
