// The in-memory mirror of the store that answers K-NN queries (pattern-store.md §7.2, spec §12 targets):
// each set-valued feature is a bitset over interned labels, laid out column-wise in typed arrays, so a
// query is one linear pass of popcounts over the fingerprints plus a partial top-K over the outcomes.
import type { Decimal } from 'decimal.js';
import { noEvidence, type ModelEvidence } from './expected-gain.ts';
import { meanUsdFromMicros } from './money.ts';
import { createBoundedTopK } from './bounded-top-k.ts';
import { createEmbeddingRows, type EmbeddingRows } from './embeddings/embedding-rows.ts';
import { compareBlendedNeighbors, compareNeighbors, type NeighborTieKey } from './neighbor-order.ts';
import type { NeighborMatch } from './pattern-store.ts';
import { popcount, SetColumn } from './label-bitsets.ts';
import { combineSimilarity, jaccardFromCounts } from './similarity.ts';
import { blendScores, partitionScore } from './similarity-v2.ts';
import { canonicalForm, isFrozenFeatures, type StructuralFeatures } from './structural-features.ts';

/** An outcome row as the index keeps it. */
export interface IndexedOutcomeState extends NeighborTieKey {
  success_score_mean: number;
  success_score_count: number;
  avg_cost_usd: Decimal;
  avg_latency_ms: number;
}

interface FingerprintEntry {
  id: string;
  sig: string;
  slot: number;
  /** Its workload's interned code (-1: none), the key of its outcomes' per-workspace totals. */
  workloadCode: number;
  /** This fingerprint's outcome rows (a handful: one per model). */
  outcomes: IndexedOutcomeState[];
}

/** The mirror: fingerprints and outcomes in memory, updated on every write and reloaded on foreign ones. */
export interface FeatureIndex {
  readonly fingerprintCount: number;
  readonly outcomeCount: number;
  /** Changes on every write (put, remove, clear, a stored embedding): equal versions answer every query alike. */
  readonly version: number;
  /** Adds a fingerprint (no-op when its id is known). */
  putFingerprint(id: string, sig: string, features: StructuralFeatures): void;
  /**
   * Inserts or replaces an outcome row. Ignored when its fingerprint is unknown: that fingerprint came
   * from another connection's commit, so the owner's data_version check reloads the whole mirror.
   */
  putOutcome(state: IndexedOutcomeState): void;
  removeOutcome(fingerprintId: string, model: string): void;
  /** Removes a fingerprint and its outcomes. */
  removeFingerprint(fingerprintId: string): void;
  clear(): void;
  fingerprintIdBySig(sig: string): string | null;
  /** The k nearest outcome rows in `compareNeighbors` order. `features` must be normalized. */
  kNearest(features: StructuralFeatures, k: number, useWorkloadId: boolean): NeighborMatch[];
  /** Fingerprints holding an embedding (always 0 without `embeddingDim`). */
  readonly embeddingCount: number;
  /** Stores the fingerprint's embedding unless it has one (first wins); false when not stored (unknown id, dim ≠ `embeddingDim`). */
  setEmbedding(fingerprintId: string, v: Float32Array): boolean;
  /** A copy of the fingerprint's embedding, or null. */
  embeddingOf(fingerprintId: string): Float32Array | null;
  /** Whether the fingerprint holds an embedding: `embeddingOf(id) !== null`, without copying the vector. */
  hasEmbedding(fingerprintId: string): boolean;
  /**
   * The v2 K-NN (pattern-store.md §16.5) in `compareBlendedNeighbors` order: α·cosine + (1−α)·structural
   * for fingerprints with an embedding (structural alone for the rest, or for all when `query` is not of
   * `embeddingDim`), then the §16.5.4 workload partition when `useWorkloadId`. One pass over the
   * fingerprints, a bounded heap over their outcomes. `features` must be normalized; α in [0, 1].
   */
  kNearestBlended(features: StructuralFeatures, k: number, useWorkloadId: boolean, query: Float32Array, alpha: number): NeighborMatch[];
  /** Per-model totals (unweighted) of every outcome row, and of the rows of workload `workloadId` (null when it is null); kept up to date on every write. */
  modelTotals(workloadId: string | null): { global: ModelEvidence[]; workspace: ModelEvidence[] | null };
}

/** Options of `createFeatureIndex`. */
export interface FeatureIndexOptions {
  /** Keep a slot-aligned embedding matrix of this dim (v2 stores). */
  embeddingDim?: number;
}

/**
 * An outcome row's state with its mean cost (two Decimal divisions) worked out at its first read and kept. A
 * matrix fold's seeding replaces a row's state on every record (22k records onto ~600 rows), and most states
 * are replaced before anything reads their cost. Immutable, so the index keeps it without a copy.
 */
class LazyCostOutcome implements IndexedOutcomeState {
  readonly fingerprint_id: string;
  readonly primary_model: string;
  readonly sample_size: number;
  readonly last_updated_at_us: number;
  readonly success_score_mean: number;
  readonly success_score_count: number;
  readonly avg_latency_ms: number;
  private readonly micros: bigint;
  private avg: Decimal | null = null;
  constructor(row: OutcomeCounts, avgLatencyMs: number) {
    this.fingerprint_id = row.fingerprint_id;
    this.primary_model = row.primary_model;
    this.sample_size = row.sample_size;
    this.last_updated_at_us = row.last_updated_at_us;
    this.success_score_mean = row.success_score_mean;
    this.success_score_count = row.success_score_count;
    this.avg_latency_ms = avgLatencyMs;
    this.micros = row.sum_cost_usd_micros;
  }
  get avg_cost_usd(): Decimal {
    return (this.avg ??= meanUsdFromMicros(this.micros, this.sample_size));
  }
}

/** What outcomeState reads of an outcome row. */
export interface OutcomeCounts extends NeighborTieKey {
  success_score_mean: number;
  success_score_count: number;
  sum_cost_usd_micros: bigint;
}

/** An outcome row's state, its avg_cost_usd the row's mean cost (meanUsdFromMicros) worked out when first read. */
export function outcomeState(row: OutcomeCounts, avgLatencyMs: number): IndexedOutcomeState {
  return new LazyCostOutcome(row, avgLatencyMs);
}

const toMatch = (o: IndexedOutcomeState, similarity: number): NeighborMatch => ({
  fingerprint_id: o.fingerprint_id,
  primary_model: o.primary_model,
  similarity,
  sample_size: o.sample_size,
  success_score_mean: o.success_score_mean,
  success_score_count: o.success_score_count,
  avg_cost_usd: o.avg_cost_usd,
  avg_latency_ms: o.avg_latency_ms,
});

type Encoded = ReturnType<SetColumn['encode']>;

interface Candidate {
  sim: number;
  o: IndexedOutcomeState;
}
/**
 * One step of a partial selection: `o` (of similarity `sim`) put into `top` / `topSim`, a best-first array of at
 * most `k` in `order`, by insertion, unless it ranks after all k kept. Both K-NNs keep their top k this way, each in
 * its own order.
 */
function keepTop(top: IndexedOutcomeState[], topSim: number[], k: number, sim: number, o: IndexedOutcomeState, order: (simA: number, a: IndexedOutcomeState, simB: number, b: IndexedOutcomeState) => number): void {
  if (top.length === k && order(sim, o, topSim[k - 1]!, top[k - 1]!) >= 0) return;
  let i = top.length === k ? k - 1 : top.length;
  while (i > 0 && order(sim, o, topSim[i - 1]!, top[i - 1]!) < 0) {
    top[i] = top[i - 1]!;
    topSim[i] = topSim[i - 1]!;
    i--;
  }
  top[i] = o;
  topSim[i] = sim;
}

const byBlendedOrder = (a: Candidate, b: Candidate) => compareBlendedNeighbors(a.sim, a.o, b.sim, b.o);
/** Changes to the per-model totals that may wait unapplied (modelTotals applies them): a fold's seeding (~45k) fits. */
const PENDING_MAX = 65_536;
/** Structural scores kept per query shape at one index version, in all (8 MB of float64). */
const SHAPE_SCORES_MAX_FLOATS = 1 << 20;
/** Up to this k the blended K-NN keeps its best in an insertion-sorted array; above it, a heap. */
const INSERTION_MAX_K = 32;

/** Creates an empty index. */
export function createFeatureIndex(options: FeatureIndexOptions = {}): FeatureIndex {
  const embeddingDim = options.embeddingDim ?? 0;
  let capacity = 64;
  let columns: SetColumn[];
  let tokenBucket: Int8Array;
  let images: Uint8Array;
  let workload: Int32Array;
  let slots: FingerprintEntry[] = [];
  let outcomeCount = 0;
  let version = 0;
  let byId = new Map<string, FingerprintEntry>();
  let bySig = new Map<string, FingerprintEntry>();
  let workloads = new Map<string, number>();
  let vectors: EmbeddingRows | null = null;
  /** Running per-model totals: key -1 = the whole store, else a workload code. */
  let totals = new Map<number, Map<string, ModelEvidence>>();

  // The totals are read only by expected_gain's priors (modelTotals), while every write changes them: the
  // changes wait in order here and are applied, in that order (the same Decimal sums to the last digit), when
  // the totals are read or when PENDING_MAX wait. States are immutable, so a waiting one reads as it was.
  let pendingCodes: number[] = [];
  let pendingStates: IndexedOutcomeState[] = [];
  let pendingSigns: (1 | -1)[] = [];

  /** Adds (sign 1) or removes (sign −1) an outcome row's contribution to the totals, once they are next read. */
  function tally(code: number, o: IndexedOutcomeState, sign: 1 | -1): void {
    pendingCodes.push(code);
    pendingStates.push(o);
    pendingSigns.push(sign);
    if (pendingStates.length >= PENDING_MAX) settle();
  }

  /** Applies the waiting changes to the totals, in the order they were made. */
  function settle(): void {
    for (let i = 0; i < pendingStates.length; i++) applyTally(pendingCodes[i]!, pendingStates[i]!, pendingSigns[i]!);
    pendingCodes = [];
    pendingStates = [];
    pendingSigns = [];
  }

  /** Adds (sign 1) or removes (sign −1) an outcome row's contribution to the store's and its workload's totals. */
  function applyTally(code: number, o: IndexedOutcomeState, sign: 1 | -1): void {
    for (const key of code === -1 ? [-1] : [-1, code]) {
      let byModel = totals.get(key);
      if (!byModel) totals.set(key, (byModel = new Map()));
      let e = byModel.get(o.primary_model);
      if (!e) byModel.set(o.primary_model, (e = noEvidence(o.primary_model)));
      e.samples += sign * o.sample_size;
      e.scoredWeight += sign * o.success_score_count;
      e.successSum += sign * o.success_score_mean * o.success_score_count;
      e.costWeight += sign * o.sample_size;
      e.costSum = e.costSum.plus(o.avg_cost_usd.times(sign * o.sample_size));
      if (e.samples === 0) byModel.delete(o.primary_model);
    }
  }

  const labelsOf = (f: StructuralFeatures): readonly string[][] => [
    f.intent_tags,
    f.file_extensions,
    f.tool_names,
    f.file_path_buckets,
    f.side_effect_classes,
  ];

  function reset(): void {
    version++;
    capacity = 64;
    columns = Array.from({ length: 5 }, () => new SetColumn(capacity));
    tokenBucket = new Int8Array(capacity);
    images = new Uint8Array(capacity);
    workload = new Int32Array(capacity);
    slots = [];
    outcomeCount = 0;
    byId = new Map();
    bySig = new Map();
    workloads = new Map();
    totals = new Map();
    pendingCodes = [];
    pendingStates = [];
    pendingSigns = [];
    vectors = embeddingDim > 0 ? createEmbeddingRows(embeddingDim, capacity) : null;
  }
  reset();

  function grow(): void {
    capacity *= 2;
    for (const c of columns) c.grow(capacity);
    const tb = new Int8Array(capacity);
    tb.set(tokenBucket);
    tokenBucket = tb;
    const im = new Uint8Array(capacity);
    im.set(images);
    images = im;
    const wl = new Int32Array(capacity);
    wl.set(workload);
    workload = wl;
    vectors?.reserve(capacity);
  }

  function workloadCode(id: string | null, intern: boolean): number {
    if (id === null) return -1;
    let code = workloads.get(id);
    if (code === undefined) {
      if (!intern) return -2; // a workload no stored fingerprint has: never equal
      workloads.set(id, (code = workloads.size));
    }
    return code;
  }

  let structuralScratch = new Float64Array(0);
  /** Every slot's §5.3 weighted Jaccard against `features`, workload partition off (the v2 blend's structural half). */
  function structuralScores(features: StructuralFeatures): Float64Array {
    if (structuralScratch.length < slots.length) structuralScratch = new Float64Array(capacity);
    const out = structuralScratch;
    const labels = labelsOf(features);
    const [c0, c1, c2, c3, c4] = columns as [SetColumn, SetColumn, SetColumn, SetColumn, SetColumn];
    const [q0, q1, q2, q3, q4] = [c0, c1, c2, c3, c4].map((c, i) => c.encode(labels[i]!)) as [Encoded, Encoded, Encoded, Encoded, Encoded];
    const qBucket = features.estimated_input_tokens_bucket;
    const qImages = features.has_images ? 1 : 0;
    if (columns.every((c) => c.stride === 1)) {
      // One word per field (the usual case): the same popcounts as `kNearest`, read from local arrays.
      const [w0, w1, w2, w3, w4] = [c0.words, c1.words, c2.words, c3.words, c4.words];
      const [z0, z1, z2, z3, z4] = [c0.sizes, c1.sizes, c2.sizes, c3.sizes, c4.sizes];
      const [b0, b1, b2, b3, b4] = [q0.bits[0]!, q1.bits[0]!, q2.bits[0]!, q3.bits[0]!, q4.bits[0]!];
      for (let s = 0; s < slots.length; s++)
        out[s] = combineSimilarity(
          jaccardFromCounts(popcount(b0 & w0[s]!), q0.size, z0[s]!),
          jaccardFromCounts(popcount(b1 & w1[s]!), q1.size, z1[s]!),
          jaccardFromCounts(popcount(b2 & w2[s]!), q2.size, z2[s]!),
          jaccardFromCounts(popcount(b3 & w3[s]!), q3.size, z3[s]!),
          jaccardFromCounts(popcount(b4 & w4[s]!), q4.size, z4[s]!),
          tokenBucket[s] === qBucket,
          images[s] === qImages,
          null,
        );
    } else
      for (let s = 0; s < slots.length; s++)
        out[s] = combineSimilarity(c0.jaccard(s, q0), c1.jaccard(s, q1), c2.jaccard(s, q2), c3.jaccard(s, q3), c4.jaccard(s, q4), tokenBucket[s] === qBucket, images[s] === qImages, null);
    return out;
  }

  /**
   * Every slot's structural score per query shape (canonical signature), kept while the index is unchanged:
   * the structural half depends on the shape alone, and a matrix fold routes thousands of tasks of a few
   * hundred shapes between two writes. Frozen (normal) features only, whose signature is kept per object.
   */
  const shapeScores = { version: -1, bySig: new Map<string, Float64Array>(), floats: 0 };
  function structuralScoresOfShape(features: StructuralFeatures): Float64Array {
    if (!isFrozenFeatures(features)) return structuralScores(features);
    if (shapeScores.version !== version) {
      shapeScores.version = version;
      shapeScores.bySig.clear();
      shapeScores.floats = 0;
    }
    const { sig } = canonicalForm(features);
    let scores = shapeScores.bySig.get(sig);
    if (!scores) {
      scores = structuralScores(features);
      if (shapeScores.floats + slots.length <= SHAPE_SCORES_MAX_FLOATS) {
        // A copy: structuralScores answers in a scratch array the next call overwrites.
        scores = scores.slice(0, slots.length);
        shapeScores.bySig.set(sig, scores);
        shapeScores.floats += slots.length;
      }
    }
    return scores;
  }

  /** kNearestBlended's selection for a large k: a heap, O(n log k), where insertion would be O(n·k). */
  function blendedByHeap(structural: Float64Array, cos: Float32Array | null, qWorkload: number, k: number, alpha: number): NeighborMatch[] {
    const top = createBoundedTopK<Candidate>(k, byBlendedOrder);
    for (let s = 0; s < slots.length; s++) {
      const base = cos && vectors!.has(s) ? blendScores(cos[s]!, structural[s]!, alpha) : structural[s]!;
      const w = workload[s]!;
      const sim = qWorkload === -1 || w === -1 ? base : partitionScore(base, w === qWorkload);
      const worst = top.worst;
      if (worst && sim < worst.sim) continue;
      for (const o of slots[s]!.outcomes) top.offer({ sim, o });
    }
    return top.sorted().map((c) => toMatch(c.o, c.sim));
  }

  return {
    get fingerprintCount() {
      return slots.length;
    },
    get outcomeCount() {
      return outcomeCount;
    },
    get version() {
      return version;
    },
    putFingerprint(id, sig, features) {
      if (byId.has(id)) return;
      version++;
      if (slots.length === capacity) grow();
      const slot = slots.length;
      const labels = labelsOf(features);
      columns.forEach((c, i) => c.write(slot, labels[i]!, slot));
      tokenBucket[slot] = features.estimated_input_tokens_bucket;
      images[slot] = features.has_images ? 1 : 0;
      workload[slot] = workloadCode(features.workload_id, true);
      const entry: FingerprintEntry = { id, sig, slot, workloadCode: workload[slot]!, outcomes: [] };
      slots.push(entry);
      byId.set(id, entry);
      bySig.set(sig, entry);
    },
    putOutcome(state) {
      const fp = byId.get(state.fingerprint_id);
      if (!fp) return;
      version++;
      // outcomeState's states are immutable; any other is copied, so a caller's later change cannot reach the index.
      const copy = state instanceof LazyCostOutcome ? state : { ...state };
      const at = fp.outcomes.findIndex((o) => o.primary_model === state.primary_model);
      if (at >= 0) tally(fp.workloadCode, fp.outcomes[at]!, -1);
      tally(fp.workloadCode, copy, 1);
      if (at >= 0) fp.outcomes[at] = copy;
      else {
        fp.outcomes.push(copy);
        outcomeCount++;
      }
    },
    removeOutcome(fingerprintId, model) {
      const fp = byId.get(fingerprintId);
      const at = fp ? fp.outcomes.findIndex((o) => o.primary_model === model) : -1;
      if (at < 0) return;
      version++;
      tally(fp!.workloadCode, fp!.outcomes[at]!, -1);
      fp!.outcomes.splice(at, 1);
      outcomeCount--;
    },
    removeFingerprint(fingerprintId) {
      const fp = byId.get(fingerprintId);
      if (!fp) return;
      version++;
      for (const o of fp.outcomes) tally(fp.workloadCode, o, -1);
      outcomeCount -= fp.outcomes.length;
      const last = slots.pop()!;
      if (last !== fp) {
        // Swap-remove: the last fingerprint takes the freed slot.
        for (const c of columns) c.move(last.slot, fp.slot);
        tokenBucket[fp.slot] = tokenBucket[last.slot]!;
        images[fp.slot] = images[last.slot]!;
        workload[fp.slot] = workload[last.slot]!;
        vectors?.move(last.slot, fp.slot);
        slots[fp.slot] = last;
        last.slot = fp.slot;
      }
      else vectors?.clear(fp.slot);
      byId.delete(fp.id);
      if (bySig.get(fp.sig) === fp) bySig.delete(fp.sig);
    },
    clear: reset,
    fingerprintIdBySig(sig) {
      return bySig.get(sig)?.id ?? null;
    },
    kNearest(features, k, useWorkloadId) {
      if (k <= 0 || outcomeCount === 0) return [];
      const labels = labelsOf(features);
      const [cIntent, cExt, cTools, cBuckets, cEffects] = columns as [SetColumn, SetColumn, SetColumn, SetColumn, SetColumn];
      const qIntent = cIntent.encode(labels[0]!);
      const qExt = cExt.encode(labels[1]!);
      const qTools = cTools.encode(labels[2]!);
      const qBuckets = cBuckets.encode(labels[3]!);
      const qEffects = cEffects.encode(labels[4]!);
      const qBucket = features.estimated_input_tokens_bucket;
      const qImages = features.has_images ? 1 : 0;
      const qWorkload = useWorkloadId ? workloadCode(features.workload_id, false) : -1;
      // Best score a fingerprint could reach given its cheap terms (every Jaccard at 1): lets the scan
      // skip, exactly, fingerprints that cannot beat the current k-th neighbour. Index: bucket + 2·images + 4·workload.
      const bounds = new Float64Array(12);
      for (let b = 0; b < 12; b++) bounds[b] = combineSimilarity(1, 1, 1, 1, 1, (b & 1) === 1, (b & 2) === 2, b < 4 ? null : b >= 8);
      // Every field within 32 labels (the usual case): one word each, read straight from local arrays.
      const narrow = columns.every((c) => c.stride === 1);
      const [w0, w1, w2, w3, w4] = columns.map((c) => c.words) as [Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array];
      const [z0, z1, z2, z3, z4] = columns.map((c) => c.sizes) as [Uint16Array, Uint16Array, Uint16Array, Uint16Array, Uint16Array];
      const [b0, b1, b2, b3, b4] = [qIntent, qExt, qTools, qBuckets, qEffects].map((q) => q.bits[0]!) as [number, number, number, number, number];
      const [n0, n1, n2, n3, n4] = [qIntent.size, qExt.size, qTools.size, qBuckets.size, qEffects.size];
      const top: IndexedOutcomeState[] = [];
      const topSim: number[] = [];
      let worst = -1;
      for (let s = 0; s < slots.length; s++) {
        const w = workload[s]!;
        const wState = qWorkload === -1 || w === -1 ? 0 : w === qWorkload ? 8 : 4;
        const sameBucket = tokenBucket[s] === qBucket;
        const sameImages = images[s] === qImages;
        if (top.length === k && bounds[wState + (sameBucket ? 1 : 0) + (sameImages ? 2 : 0)]! < worst) continue;
        const sameWorkload = wState === 0 ? null : wState === 8;
        const sim = narrow
          ? combineSimilarity(
              jaccardFromCounts(popcount(b0 & w0[s]!), n0, z0[s]!),
              jaccardFromCounts(popcount(b1 & w1[s]!), n1, z1[s]!),
              jaccardFromCounts(popcount(b2 & w2[s]!), n2, z2[s]!),
              jaccardFromCounts(popcount(b3 & w3[s]!), n3, z3[s]!),
              jaccardFromCounts(popcount(b4 & w4[s]!), n4, z4[s]!),
              sameBucket,
              sameImages,
              sameWorkload,
            )
          : combineSimilarity(
              cIntent.jaccard(s, qIntent),
              cExt.jaccard(s, qExt),
              cTools.jaccard(s, qTools),
              cBuckets.jaccard(s, qBuckets),
              cEffects.jaccard(s, qEffects),
              sameBucket,
              sameImages,
              sameWorkload,
            );
        if (top.length === k && sim < worst) continue;
        // Partial selection: a best-first array of at most k, insertion-sorted.
        for (const o of slots[s]!.outcomes) keepTop(top, topSim, k, sim, o, compareNeighbors);
        if (top.length === k) worst = topSim[k - 1]!;
      }
      return top.map((o, i) => toMatch(o, topSim[i]!));
    },
    get embeddingCount() {
      return vectors?.count ?? 0;
    },
    setEmbedding(fingerprintId, v) {
      const fp = byId.get(fingerprintId);
      if (!fp || !vectors || v.length !== embeddingDim || vectors.has(fp.slot)) return false;
      version++;
      vectors.set(fp.slot, v);
      return true;
    },
    embeddingOf(fingerprintId) {
      const fp = byId.get(fingerprintId);
      return fp && vectors ? vectors.get(fp.slot) : null;
    },
    hasEmbedding(fingerprintId) {
      const fp = byId.get(fingerprintId);
      return fp !== undefined && vectors !== null && vectors.has(fp.slot);
    },
    kNearestBlended(features, k, useWorkloadId, query, alpha) {
      if (k <= 0 || outcomeCount === 0) return [];
      const structural = structuralScoresOfShape(features);
      const qWorkload = useWorkloadId ? workloadCode(features.workload_id, false) : -1;
      const cos = vectors && vectors.count > 0 && query.length === embeddingDim ? vectors.dots(query, slots.length) : null;
      if (k > INSERTION_MAX_K) return blendedByHeap(structural, cos, qWorkload, k, alpha);
      // The k best in compareBlendedNeighbors order, a best-first array insertion-sorted as kNearest keeps
      // its own: the order is total, so this is the one top k the heap finds too, with no object per
      // candidate and no selector made per query (a matrix cross-fit asks this 70k times, at k = 10).
      const top: IndexedOutcomeState[] = [];
      const topSim: number[] = [];
      for (let s = 0; s < slots.length; s++) {
        const base = cos && vectors!.has(s) ? blendScores(cos[s]!, structural[s]!, alpha) : structural[s]!;
        const w = workload[s]!;
        const sim = qWorkload === -1 || w === -1 ? base : partitionScore(base, w === qWorkload);
        // Below the k-th kept similarity nothing of this fingerprint can enter (ties still compare).
        if (top.length === k && sim < topSim[k - 1]!) continue;
        for (const o of slots[s]!.outcomes) keepTop(top, topSim, k, sim, o, compareBlendedNeighbors);
      }
      return top.map((o, i) => toMatch(o, topSim[i]!));
    },
    modelTotals(workloadId) {
      settle();
      const copy = (key: number) => [...(totals.get(key)?.values() ?? [])].map((e) => ({ ...e }));
      if (workloadId === null) return { global: copy(-1), workspace: null };
      const code = workloadCode(workloadId, false);
      return { global: copy(-1), workspace: code < 0 ? [] : copy(code) };
    },
  };
}
