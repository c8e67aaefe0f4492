// The math of slot 4's `expected_gain` scoring (routing.yaml pattern.scoring): per-model P(solve) and
// cost estimated hierarchically (K-NN neighbours, shrunk to the workspace's rates, shrunk to the store's),
// then the model whose expected solved rate minus its cost-weighted price is highest. Pure functions;
// cluster-scoring.ts feeds them the store's rows.
import { Decimal } from 'decimal.js';

/** Pseudo-samples of the workspace estimate a model's neighbour estimate is shrunk toward. */
export const NEIGHBOR_PRIOR_STRENGTH = 10;
/** Pseudo-samples of the store-wide estimate a model's workspace estimate is shrunk toward. */
export const WORKSPACE_PRIOR_STRENGTH = 20;
/**
 * Pseudo-samples of the store-wide cost a workspace's mean cost is shrunk toward: one. A turn's cost
 * varies little next to its 0/1 outcome, so a few samples measure it well, and a workspace whose turns are
 * long must not be priced at the store's mean (that would hide exactly the cost differences the choice trades on).
 */
export const COST_PRIOR_STRENGTH = 1;

/** A model's evidence at one level (neighbours, one workspace, the whole store): weighted sums. */
export interface ModelEvidence {
  model: string;
  /** Raw samples behind the sums (what min_sample_size counts). */
  samples: number;
  /** Σ w·n over scored samples (the success mean's denominator). */
  scoredWeight: number;
  /** Σ w·n·success. */
  successSum: number;
  /** Σ w·n over all samples (the cost mean's denominator). */
  costWeight: number;
  /** Σ w·n·cost, USD. */
  costSum: Decimal;
}

/** A model's estimate for one turn. */
export interface ModelEstimate {
  model: string;
  /** Estimated P(solve) in [0, 1]. */
  p: number;
  /** Estimated cost of the turn, USD. */
  cost: Decimal;
  /** Effective samples behind `p` (weighted evidence plus prior pseudo-samples), for Thompson draws. */
  strength: number;
  /** Raw samples of the neighbours and the workspace (what the min_sample_size gate counts). */
  samples: number;
}

/** An empty evidence record for `model`. */
export function noEvidence(model: string): ModelEvidence {
  return { model, samples: 0, scoredWeight: 0, successSum: 0, costWeight: 0, costSum: new Decimal(0) };
}

/**
 * Shrinkage of a weighted mean toward a prior: (Σ + k·prior) / (W + k), a Beta(k·prior, k·(1 − prior))
 * posterior mean when the values are solve/fail. With no evidence it is the prior; as W grows it tends to Σ/W.
 */
export function shrink(sum: number, weight: number, prior: number, strength: number): number {
  if (!(weight >= 0) || !(strength >= 0)) throw new RangeError(`shrink: weight and strength must be >= 0, got ${weight}, ${strength}`);
  if (weight + strength === 0) return prior;
  return (sum + strength * prior) / (weight + strength);
}

/** The same shrinkage for a cost, in Decimal. */
export function shrinkCost(sum: Decimal, weight: number, prior: Decimal, strength: number): Decimal {
  if (weight + strength === 0) return prior;
  return sum.plus(prior.times(strength)).div(weight + strength);
}

/**
 * Hierarchical estimates for every model with store-wide evidence: the store's mean (a model never scored
 * anywhere gets 0.5, an uninformed prior), the workspace's shrunk to it (when the turn has a workspace),
 * the neighbours' shrunk to that. Models only in `neighbors`/`workspace` but not `global` are ignored: the
 * store-wide totals include every row, so that happens only on inconsistent input. `pooled`: the
 * store's mean is itself shrunk to the pool prior of the other models (exploration's online stores, where a model may have few rows).
 */
export function hierarchicalEstimates(global: readonly ModelEvidence[], workspace: readonly ModelEvidence[] | null, neighbors: readonly ModelEvidence[], pooled = false): ModelEstimate[] {
  const ws = new Map((workspace ?? []).map((e) => [e.model, e]));
  const nb = new Map(neighbors.map((e) => [e.model, e]));
  return global
    .filter((g) => g.samples > 0)
    .map((g) => {
      // Pooled (exploration), a thinly seen model's store-wide rate is shrunk to the other models' (poolPrior),
      // so one unlucky first outcome does not price it at 0 and shut it out of every later draw.
      const pool = pooled ? poolPrior(global, g.model) : null;
      const gp = pool ? shrink(g.successSum, g.scoredWeight, pool.p, pool.strength) : g.scoredWeight > 0 ? g.successSum / g.scoredWeight : 0.5;
      const gc = g.costWeight > 0 ? g.costSum.div(g.costWeight) : new Decimal(0);
      const w = ws.get(g.model) ?? noEvidence(g.model);
      const wp = shrink(w.successSum, w.scoredWeight, gp, WORKSPACE_PRIOR_STRENGTH);
      const wc = shrinkCost(w.costSum, w.costWeight, gc, COST_PRIOR_STRENGTH);
      const n = nb.get(g.model) ?? noEvidence(g.model);
      return {
        model: g.model,
        p: shrink(n.successSum, n.scoredWeight, wp, NEIGHBOR_PRIOR_STRENGTH),
        // The turn's cost is its workspace's (the store's without one), not its neighbours': neighbours
        // tell what a model solves; a workspace's prompts (their length) set what a turn costs, and in a
        // new workspace no recorded cost is this turn's own (measured, docs/decisions.md).
        cost: wc,
        // With a pool prior, the neighbours' prior is only as sure as the store-wide evidence behind it: a
        // model seen once is drawn wide, so Thompson sampling can still find it better.
        strength: n.scoredWeight + (pool ? Math.min(NEIGHBOR_PRIOR_STRENGTH, g.scoredWeight + pool.strength) : NEIGHBOR_PRIOR_STRENGTH),
        samples: n.samples + w.samples,
      };
    });
}

/**
 * The store-wide cost scale the cost term is measured in: the spread between the dearest and the cheapest
 * model's store-wide mean cost (0 when fewer than two models, or all cost alike). A global scale, unlike
 * §8.3's per-cluster spread, so a turn that costs more than usual needs a larger expected gain.
 */
export function costScale(global: readonly ModelEvidence[]): number {
  const means = global.filter((g) => g.costWeight > 0).map((g) => g.costSum.div(g.costWeight).toNumber());
  return means.length < 2 ? 0 : Math.max(...means) - Math.min(...means);
}

/**
 * score_m = (1 − cw)·p_m − cw·cost_m / scale (cost term dropped when scale is 0). The argmax picks a
 * dearer model over a cheaper one exactly when (p_dear − p_cheap) / (cost_dear − cost_cheap) > cw / ((1 − cw)·scale):
 * its expected gain per extra dollar clears the cost_weight. With cw = 0 it is the most likely to solve.
 */
export function gainScore(p: number, cost: number, costWeight: number, scale: number): number {
  return (1 - costWeight) * p - (scale > 0 ? (costWeight * cost) / scale : 0);
}

/** A Gamma(shape, 1) draw (Marsaglia–Tsang; shape < 1 boosted by U^(1/shape)); `random` yields [0, 1). */
export function sampleGamma(shape: number, random: () => number): number {
  if (!(shape > 0)) throw new RangeError(`sampleGamma: shape must be > 0, got ${shape}`);
  if (shape < 1) return sampleGamma(shape + 1, random) * Math.pow(1 - random(), 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    // A standard normal by Box–Muller (1 − u keeps the log finite).
    const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    const v = (1 + c * z) ** 3;
    if (v <= 0) continue;
    const u = 1 - random();
    if (Math.log(u) < 0.5 * z * z + d - d * v + d * Math.log(v)) return d * v;
  }
}

/** A Beta(a, b) draw in [0, 1]. */
export function sampleBeta(a: number, b: number, random: () => number): number {
  const x = sampleGamma(a, random);
  const y = sampleGamma(b, random);
  return x + y > 0 ? x / (x + y) : 0.5;
}

/** Thompson sampling's draw of a model's P(solve): Beta(1 + p·s, 1 + (1 − p)·s) for an estimate with strength s. */
export function thompsonDraw(e: Pick<ModelEstimate, 'p' | 'strength'>, random: () => number): number {
  return sampleBeta(1 + e.p * e.strength, 1 + (1 - e.p) * e.strength, random);
}

/**
 * The spread of P(solve) across models assumed when fewer than two models have evidence: about what
 * separates a strong from a weak LLM on a benchmark, so an unseen model is neither certain to match the
 * seen one nor a free coin flip.
 */
export const UNSEEN_SPREAD_FALLBACK = 0.15;

/** What routing believes of a model the store has never seen: the pool's evidence, never a free draw. */
export interface PoolPrior {
  /** Mean of the seen models' store-wide P(solve) (0.5 when none is scored). */
  p: number;
  /** Pseudo-samples whose Beta has the seen models' spread of P(solve) as its sd (moment match). */
  strength: number;
  /** Mean of the seen models' store-wide mean cost, USD. */
  cost: Decimal;
}

/**
 * The pool prior from the store-wide evidence: the models' mean rate, and a Beta strength whose sd is
 * the models' spread (sd² = p(1 − p)/(s + 1), so s = p(1 − p)/sd² − 1; at least 1, so the draw is never
 * uniform). An unseen model is priced at the seen models' mean cost, not at zero. `except` leaves one
 * model out: a seen model's own prior is the other models' evidence, so its own unlucky first outcomes do
 * not drag down the very prior meant to temper them.
 */
export function poolPrior(global: readonly ModelEvidence[], except?: string): PoolPrior {
  const rates = global.filter((g) => g.scoredWeight > 0 && g.model !== except).map((g) => g.successSum / g.scoredWeight);
  const costs = global.filter((g) => g.costWeight > 0).map((g) => g.costSum.div(g.costWeight));
  const cost = costs.length ? costs.reduce((a, b) => a.plus(b), new Decimal(0)).div(costs.length) : new Decimal(0);
  if (!rates.length) return { p: 0.5, strength: 1, cost };
  const p = rates.reduce((a, b) => a + b, 0) / rates.length;
  const sd = rates.length < 2 ? UNSEEN_SPREAD_FALLBACK : Math.sqrt(rates.reduce((a, r) => a + (r - p) ** 2, 0) / (rates.length - 1));
  // A pool whose models all score alike still leaves an unseen one some room: the fallback spread's floor.
  const spread = Math.max(sd, UNSEEN_SPREAD_FALLBACK / 3);
  const strength = Math.max(1, (p * (1 - p)) / (spread * spread) - 1);
  return { p, strength, cost };
}

/** How much expected regret exploration may still spend (routing.yaml pattern.exploration_regret_budget). */
export interface RegretBudget {
  /** A turn is being routed: the allowance refills by its per-turn share. */
  turn(): void;
  /** Points left (100 points = one task's worth of slot 4's utility). */
  remaining(): number;
  /** Charges `points` of expected regret. */
  spend(points: number): void;
}

/**
 * A budget of `points` of expected regret per 100 turns, as a token bucket: all of it available at the
 * start, refilled by points/100 a turn, never holding more than `points`. So after t turns at most
 * points × (1 + t/100) has been charged: average exploration regret tends to points/100 a turn. A bucket
 * rather than a one-off allowance: once spent for good, routing is greedy and a model whose first outcomes
 * were unlucky is never tried again (the greedy lock-in a one-off budget showed on seeded streams).
 */
export function createRegretBudget(points: number): RegretBudget {
  if (!(points >= 0)) throw new RangeError(`regret budget must be >= 0, got ${points}`);
  let left = points;
  return {
    turn() {
      left = Math.min(points, left + points / 100);
    },
    remaining: () => left,
    spend(p) {
      left = Math.max(0, left - p);
    },
  };
}
