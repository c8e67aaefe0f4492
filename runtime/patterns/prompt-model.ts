import { seededRandom } from '../core/seeded-random.ts';

/**
 * Slot 4's `learned` scoring (issue 27 item 4): per-model P(solve | prompt) from the store's per-task
 * outcomes. Each task is a hashed bag of words (one sparse unit vector per task); per model, a ridge
 * regression over those vectors predicts the score's departure from a shrunk per-cluster prior. Every
 * model shares the same vectors and λ, and ridge is linear in its target, so the difference of two models'
 * predictions is exactly the ridge fit of their per-task gain: the model learns the gain, task by task.
 * Clusters are the workload when known, else the nearest of k-means centroids learnt over the vectors, so
 * a new workspace still gets cluster-level evidence. Pure functions; the store supplies the rows.
 */

/** A sparse vector: parallel index / value arrays (indices unique). */
export interface SparseVec {
  idx: Int32Array;
  val: Float64Array;
}

/** One stored outcome as the learned scorer reads it. */
export interface PromptOutcomeRow {
  /** Groups the rows of one task (its turn's text hash): one vector per task. */
  task_key: string;
  terms: SparseVec;
  chars: number;
  workload_id: string | null;
  model: string;
  score: number;
  cost_usd: number;
}

/** The knobs of the learned scorer: runtime/data/prompt-model.json's (prompt-model-settings.ts) and the store's hashed dimension. */
export interface PromptModelOptions {
  /** Hashed feature dimension. */
  dim: number;
  /** Ridge penalty λ on the word weights. */
  lambda: number;
  /** Prior strength (pseudo-tasks) shrinking a cluster's mean toward the model's store-wide mean. */
  cluster_prior: number;
  /** Learned clusters (k-means); 0 turns them off. */
  k_clusters: number;
  /** Seed of k-means' initialisation. */
  seed: number;
  /**
   * How far a prompt's own length sets the cost the scorer weighs (pricedCost): 1 prices each prompt from its
   * length, 0 at the model's store-wide mean cost (so the ranking across prompts is by predicted gain alone).
   */
  price_exponent: number;
}


const WORD = /[a-z0-9]+/g;

/** FNV-1a of a string, as an unsigned 32-bit integer. */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The prompt's words (lower-cased alphanumeric runs), hashed into `dim` buckets with a signed hash, L2-normalised (empty text: the zero vector). */
export function hashedTerms(text: string, dim: number): SparseVec {
  const acc = new Map<number, number>();
  for (const w of text.toLowerCase().match(WORD) ?? []) {
    const h = fnv1a(w);
    const i = h % dim;
    // The sign bit keeps colliding words from always adding up (feature hashing's usual trick).
    acc.set(i, (acc.get(i) ?? 0) + ((h >>> 31) & 1 ? -1 : 1));
  }
  const idx = [...acc.keys()].sort((a, b) => a - b);
  let norm = 0;
  for (const i of idx) norm += acc.get(i)! ** 2;
  norm = Math.sqrt(norm);
  return { idx: Int32Array.from(idx), val: Float64Array.from(idx.map((i) => (norm > 0 ? acc.get(i)! / norm : 0))) };
}

/** x · w for a sparse x and a dense w. */
export function sparseDot(x: SparseVec, w: ArrayLike<number>): number {
  let s = 0;
  for (let j = 0; j < x.idx.length; j++) s += x.val[j]! * w[x.idx[j]!]!;
  return s;
}

/** A ridge fit: y ≈ intercept + x · w. */
export interface RidgeFit {
  w: Float64Array;
  intercept: number;
}

/**
 * Ridge regression min Σ (y − b − x·w)² + λ‖w‖² with the intercept b unpenalised, solved by conjugate
 * gradients on the centred normal equations (XᵀX − n·μμᵀ + λI) w = Xᵀ(y − ȳ), μ the features' mean. The
 * centring is applied as a rank-one correction, so the rows stay sparse: O(iterations × nonzeros), and
 * thousands of tasks train in milliseconds. b = ȳ − μ·w.
 */
export function fitRidge(xs: readonly SparseVec[], y: readonly number[], dim: number, lambda: number, iterations = 60): RidgeFit {
  if (xs.length !== y.length) throw new RangeError(`fitRidge: ${xs.length} rows, ${y.length} targets`);
  if (!(lambda > 0)) throw new RangeError(`fitRidge: lambda must be > 0, got ${lambda}`);
  const n = xs.length;
  const w = new Float64Array(dim);
  if (n === 0) return { w, intercept: 0 };
  const mean = y.reduce((a, b) => a + b, 0) / n;
  const mu = new Float64Array(dim);
  for (const x of xs) for (let j = 0; j < x.idx.length; j++) mu[x.idx[j]!]! += x.val[j]! / n;
  // A v = Xᵀ X v − n μ (μ·v) + λ v
  const apply = (v: Float64Array): Float64Array => {
    const out = new Float64Array(dim);
    for (const x of xs) {
      const d = sparseDot(x, v);
      if (d !== 0) for (let j = 0; j < x.idx.length; j++) out[x.idx[j]!]! += d * x.val[j]!;
    }
    const muV = n * dot(mu, v);
    for (let i = 0; i < dim; i++) out[i]! += lambda * v[i]! - muV * mu[i]!;
    return out;
  };
  const r = new Float64Array(dim);
  xs.forEach((x, t) => {
    const c = y[t]! - mean;
    for (let j = 0; j < x.idx.length; j++) r[x.idx[j]!]! += c * x.val[j]!;
  });
  const p = Float64Array.from(r);
  let rr = dot(r, r);
  const tol = 1e-20 * Math.max(1, rr);
  for (let it = 0; it < iterations && rr > tol; it++) {
    const ap = apply(p);
    const alpha = rr / dot(p, ap);
    for (let i = 0; i < dim; i++) {
      w[i]! += alpha * p[i]!;
      r[i]! -= alpha * ap[i]!;
    }
    const next = dot(r, r);
    const beta = next / rr;
    rr = next;
    for (let i = 0; i < dim; i++) p[i] = r[i]! + beta * p[i]!;
  }
  return { w, intercept: mean - dot(mu, w) };
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Learned clusters: dense unit centroids over the task vectors. */
export interface KMeansFit {
  centroids: Float64Array[];
  /** Cluster of each input vector. */
  assign: number[];
}

/** The index of the centroid with the largest dot product with `x` (cosine, the vectors being unit), ties to the lowest index. */
export function nearestCentroid(x: SparseVec, centroids: readonly Float64Array[]): number {
  let best = -1;
  let bestS = -Infinity;
  centroids.forEach((c, i) => {
    const s = sparseDot(x, c);
    if (s > bestS) {
      bestS = s;
      best = i;
    }
  });
  return best;
}

/**
 * Spherical k-means (cosine) over unit sparse vectors, seeded: centroids start on k distinct vectors drawn
 * with `seed`, then Lloyd steps until no assignment changes (or `iterations`). An emptied cluster keeps
 * its previous centroid. k is capped at the number of vectors.
 */
export function kMeans(xs: readonly SparseVec[], k: number, dim: number, seed: number, iterations = 20): KMeansFit {
  const kk = Math.min(k, xs.length);
  if (kk <= 0) return { centroids: [], assign: xs.map(() => -1) };
  const rand = seededRandom(seed);
  const order = xs.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const centroids = order.slice(0, kk).map((i) => densify(xs[i]!, dim));
  let assign = xs.map((x) => nearestCentroid(x, centroids));
  for (let it = 0; it < iterations; it++) {
    const sums = centroids.map(() => new Float64Array(dim));
    const counts = new Array<number>(kk).fill(0);
    xs.forEach((x, t) => {
      const s = sums[assign[t]!]!;
      counts[assign[t]!]!++;
      for (let j = 0; j < x.idx.length; j++) s[x.idx[j]!]! += x.val[j]!;
    });
    sums.forEach((s, c) => {
      const norm = Math.sqrt(dot(s, s));
      if (counts[c]! > 0 && norm > 0) centroids[c] = s.map((v) => v / norm);
    });
    const next = xs.map((x) => nearestCentroid(x, centroids));
    const changed = next.some((a, t) => a !== assign[t]);
    assign = next;
    if (!changed) break;
  }
  return { centroids, assign };
}

function densify(x: SparseVec, dim: number): Float64Array {
  const d = new Float64Array(dim);
  for (let j = 0; j < x.idx.length; j++) d[x.idx[j]!] = x.val[j]!;
  return d;
}

interface ModelFit {
  model: string;
  globalMean: number;
  /** Shrunk mean per cluster key (`w:<workload>` or `k:<learned cluster>`). */
  clusterMean: Map<string, number>;
  ridge: RidgeFit;
  /** cost ≈ perChar · chars + base (least squares over the model's rows). */
  perChar: number;
  base: number;
  tasks: number;
}

/** A trained learned scorer. */
export interface PromptModel {
  options: PromptModelOptions;
  models: ModelFit[];
  centroids: Float64Array[];
  /** Mean cost per model over the store (what `costScale` spans). */
  meanCost: Map<string, number>;
  rows: number;
}

/** One model's prediction for a prompt. */
export interface PromptPrediction {
  model: string;
  /** P(solve | prompt), clipped to [0, 1]. */
  p: number;
  /** Predicted cost of this prompt on the model (USD). */
  cost_usd: number;
  /** Training tasks behind the model. */
  tasks: number;
}

const shrunkMean = (sum: number, n: number, prior: number, strength: number): number => (sum + strength * prior) / (n + strength);

/** Trains the learned scorer on the store's rows (every model's rows share the task vectors). */
export function trainPromptModel(rows: readonly PromptOutcomeRow[], options: PromptModelOptions): PromptModel {
  const o = options;
  // One vector per task: k-means over tasks, not over (task, model) rows.
  const taskVec = new Map<string, SparseVec>();
  for (const r of rows) if (!taskVec.has(r.task_key)) taskVec.set(r.task_key, r.terms);
  const keys = [...taskVec.keys()];
  const km = o.k_clusters > 0 ? kMeans(keys.map((k) => taskVec.get(k)!), o.k_clusters, o.dim, o.seed) : { centroids: [], assign: [] };
  const learned = new Map(keys.map((k, i) => [k, km.assign[i] ?? -1]));
  // A row counts toward its workload and its learned cluster; the workload's mean is used when the query has one.
  const keysOf = (r: PromptOutcomeRow): string[] => [...(r.workload_id !== null ? [`w:${r.workload_id}`] : []), ...(km.centroids.length ? [`k:${learned.get(r.task_key)}`] : [])];
  const byModel = new Map<string, PromptOutcomeRow[]>();
  for (const r of rows) byModel.set(r.model, [...(byModel.get(r.model) ?? []), r]);
  const meanCost = new Map<string, number>();
  const models = [...byModel.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([model, rs]): ModelFit => {
      const n = rs.length;
      const globalMean = rs.reduce((a, r) => a + r.score, 0) / n;
      const sums = new Map<string, { s: number; n: number }>();
      for (const r of rs)
        for (const key of keysOf(r)) {
          const c = sums.get(key) ?? { s: 0, n: 0 };
          c.s += r.score;
          c.n++;
          sums.set(key, c);
        }
      const clusterMean = new Map([...sums].map(([c, v]) => [c, shrunkMean(v.s, v.n, globalMean, o.cluster_prior)]));
      const resid = rs.map((r) => r.score - (clusterMean.get(keysOf(r)[0] ?? '') ?? globalMean));
      const ridge = fitRidge(
        rs.map((r) => r.terms),
        resid,
        o.dim,
        o.lambda,
      );
      const { slope, intercept } = leastSquares(
        rs.map((r) => r.chars),
        rs.map((r) => r.cost_usd),
      );
      meanCost.set(model, rs.reduce((a, r) => a + r.cost_usd, 0) / n);
      return { model, globalMean, clusterMean, ridge, perChar: slope, base: intercept, tasks: n };
    });
  return { options: o, models, centroids: km.centroids, meanCost, rows: rows.length };
}

/** Ordinary least squares y ≈ slope·x + intercept (slope 0 when x does not vary). */
export function leastSquares(x: readonly number[], y: readonly number[]): { slope: number; intercept: number } {
  const n = x.length;
  if (n === 0) return { slope: 0, intercept: 0 };
  const mx = x.reduce((a, b) => a + b, 0) / n;
  const my = y.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i]! - mx) * (y[i]! - my);
    sxx += (x[i]! - mx) ** 2;
  }
  const slope = sxx > 0 ? sxy / sxx : 0;
  return { slope, intercept: my - slope * mx };
}

/** Each trained model's P(solve) and cost for one prompt (`workloadId` null: the nearest learned cluster stands in). */
export function predictPrompt(m: PromptModel, terms: SparseVec, chars: number, workloadId: string | null): PromptPrediction[] {
  const learned = m.centroids.length ? `k:${nearestCentroid(terms, m.centroids)}` : null;
  return m.models.map((f) => {
    const prior = (workloadId !== null ? f.clusterMean.get(`w:${workloadId}`) : undefined) ?? (learned !== null ? f.clusterMean.get(learned) : undefined) ?? f.globalMean;
    const p = Math.min(1, Math.max(0, prior + f.ridge.intercept + sparseDot(terms, f.ridge.w)));
    return { model: f.model, p, cost_usd: pricedCost(Math.max(0, f.base + f.perChar * chars), m.meanCost.get(f.model) ?? 0, m.options.price_exponent), tasks: f.tasks };
  });
}

/**
 * The cost the scorer weighs for one prompt: mean^(1 − α) · prompt^α, the geometric interpolation between
 * the model's mean cost (α = 0) and the prompt's own length-priced cost (α = 1). At α = 1 the router sends
 * the strong model the prompts with the most gain per extra dollar, which favours short prompts; at α = 0
 * the prompts with the most gain, whatever their length (RouteLLM's call-share curve ranks that way).
 */
export function pricedCost(promptCost: number, meanCost: number, alpha: number): number {
  if (!(alpha >= 0 && alpha <= 1)) throw new RangeError(`pricedCost: alpha must be in [0, 1], got ${alpha}`);
  if (alpha === 1) return promptCost;
  if (alpha === 0) return meanCost;
  return Math.pow(meanCost, 1 - alpha) * Math.pow(promptCost, alpha);
}
