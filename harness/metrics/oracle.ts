import { Decimal } from 'decimal.js';
import { compareText } from '../../runtime/core/compare-text.ts';

/**
 * Oracle and baseline routers for A3 (issue 13, after RouterBench's Oracle and RouteLLM's random
 * router). Everything here is per workload: the forced passes run every turn of a rep on one model
 * and the hidden check judges the rep, so a workload's outcome under a model is measured, while a
 * mix of models inside one rep never is (docs/decisions.md).
 */

/** One model's record on one workload, per rep. */
export interface ArmOnWorkload {
  model: string;
  /** Mean cost of one rep (its sessions and workers), USD. */
  mean_cost_usd: Decimal;
  /** Share of reps solved (the gated verdict). */
  solved_rate: number;
  /** Mean gated score of the reps; null when no rep was scored. */
  mean_score: number | null;
}

/** A router's operating point over the suite: the cost of one rep of every workload, and the mean solved rate. */
export interface ArmPoint {
  cost_usd: Decimal;
  solved_rate: number;
}

/** What an oracle chose for one workload. */
export interface OracleChoice {
  workload: string;
  model: string;
}

/** An oracle's choices and the point they reach. */
export interface OracleResult {
  choices: OracleChoice[];
  point: ArmPoint;
}

/** Default ε: a model within 0.02 of the best mean gated score counts as just as good. */
export const DEFAULT_ORACLE_EPSILON = 0.02;

/** Sums per-workload points: cost adds, solved rate averages (every workload weighs the same). */
export function suitePoint(perWorkload: readonly ArmPoint[]): ArmPoint {
  if (perWorkload.length === 0) return { cost_usd: new Decimal(0), solved_rate: 0 };
  return {
    cost_usd: perWorkload.reduce((s, p) => s.plus(p.cost_usd), new Decimal(0)),
    solved_rate: perWorkload.reduce((s, p) => s + p.solved_rate, 0) / perWorkload.length,
  };
}

/**
 * The cheapest arm whose `quality` is within ε of the best arm's; ties in cost go to the higher
 * quality, then to the model id. Arms without a quality cannot be chosen; null when none has one.
 */
export function cheapestWithinEpsilon<T extends { model: string; mean_cost_usd: Decimal }>(arms: readonly T[], quality: (a: T) => number | null, epsilon: number): T | null {
  if (!(epsilon >= 0)) throw new RangeError(`oracle epsilon must be >= 0, got ${epsilon}`);
  const scored = arms.filter((a) => quality(a) !== null);
  if (scored.length === 0) return null;
  const best = Math.max(...scored.map((a) => quality(a)!));
  // A hair of tolerance so that a score exactly ε below the best counts despite binary rounding.
  const good = scored.filter((a) => quality(a)! >= best - epsilon - 1e-12);
  return good.sort((a, b) => a.mean_cost_usd.cmp(b.mean_cost_usd) || quality(b)! - quality(a)! || compareText(a.model, b.model))[0]!;
}

/**
 * Hindsight oracle (RouterBench): per workload, the cheapest model whose mean gated score over the
 * forced passes is within ε of the best; its point is what those choices cost and solved there.
 */
export function hindsightOracle(workloads: readonly { workload: string; arms: readonly ArmOnWorkload[] }[], epsilon = DEFAULT_ORACLE_EPSILON): OracleResult {
  const choices: OracleChoice[] = [];
  const points: ArmPoint[] = [];
  for (const w of workloads) {
    const pick = cheapestWithinEpsilon(w.arms, (a) => a.mean_score, epsilon);
    if (!pick) continue;
    choices.push({ workload: w.workload, model: pick.model });
    points.push({ cost_usd: pick.mean_cost_usd, solved_rate: pick.solved_rate });
  }
  return { choices, point: suitePoint(points) };
}

/** One model on one workload as the simulator knows it: the exact chance a rep is solved. */
export interface TrueArmOnWorkload {
  model: string;
  mean_cost_usd: Decimal;
  p_solved: number;
}

/**
 * True oracle (simulator only): per workload, the cheapest model whose exact P(solved) is within ε
 * of the best; its solved rate is that probability, an expectation with no sampling noise.
 */
export function trueOracle(workloads: readonly { workload: string; arms: readonly TrueArmOnWorkload[] }[], epsilon = DEFAULT_ORACLE_EPSILON): OracleResult {
  const choices: OracleChoice[] = [];
  const points: ArmPoint[] = [];
  for (const w of workloads) {
    const pick = cheapestWithinEpsilon(w.arms, (a) => a.p_solved, epsilon);
    if (!pick) continue;
    choices.push({ workload: w.workload, model: pick.model });
    points.push({ cost_usd: pick.mean_cost_usd, solved_rate: pick.p_solved });
  }
  return { choices, point: suitePoint(points) };
}

/**
 * The random router at strong-call share `s` (RouteLLM): each call goes to the strong model with
 * probability s, so its expected cost and solved rate interpolate the two forced arms linearly.
 */
export function randomRouter(cheap: ArmPoint, strong: ArmPoint, strongShare: number): ArmPoint {
  if (!(strongShare >= 0 && strongShare <= 1)) throw new RangeError(`strong-call share must be in [0, 1], got ${strongShare}`);
  return {
    cost_usd: cheap.cost_usd.times(1 - strongShare).plus(strong.cost_usd.times(strongShare)),
    solved_rate: (1 - strongShare) * cheap.solved_rate + strongShare * strong.solved_rate,
  };
}

/** Savings against the strong arm as a fraction: (strong − x) / strong; null when the strong arm cost nothing. */
export function savingsRate(strong: ArmPoint, x: ArmPoint): number | null {
  if (strong.cost_usd.isZero()) return null;
  return strong.cost_usd.minus(x.cost_usd).div(strong.cost_usd).toNumber();
}

/** Oracle capture: the router's savings over the oracle's; null when the oracle saves nothing. */
export function oracleCapture(strong: ArmPoint, oracle: ArmPoint, routed: ArmPoint): number | null {
  const o = savingsRate(strong, oracle);
  const r = savingsRate(strong, routed);
  if (o === null || r === null || Math.abs(o) < 1e-12) return null;
  return r / o;
}

/** Quality regret: the oracle's solved rate minus the router's (positive: the router solved less). */
export function qualityRegret(oracle: ArmPoint, routed: ArmPoint): number {
  return oracle.solved_rate - routed.solved_rate;
}

/** Performance gap recovered on solved rate: (x − cheap) / (strong − cheap); null when the arms tie. */
export function solvedGapRecovered(cheap: ArmPoint, strong: ArmPoint, x: ArmPoint): number | null {
  const gap = strong.solved_rate - cheap.solved_rate;
  if (Math.abs(gap) < 1e-12) return null;
  return (x.solved_rate - cheap.solved_rate) / gap;
}

/**
 * The router's PGR minus the random router's at the same strong-call share. RouteLLM's APGR averages
 * PGR over many call-share thresholds; A3 has one operating point, so this is that curve's one point.
 */
export function apgrVsRandom(cheap: ArmPoint, strong: ArmPoint, routed: ArmPoint, random: ArmPoint): number | null {
  const r = solvedGapRecovered(cheap, strong, routed);
  const b = solvedGapRecovered(cheap, strong, random);
  return r === null || b === null ? null : r - b;
}

/** `a` beats `b`: it solves at least as much for no more cost, and is strictly better on one of them. */
export function dominates(a: ArmPoint, b: ArmPoint): boolean {
  const tol = 1e-12;
  const solvedNoWorse = a.solved_rate >= b.solved_rate - tol;
  const costNoWorse = a.cost_usd.lte(b.cost_usd);
  return solvedNoWorse && costNoWorse && (a.solved_rate > b.solved_rate + tol || a.cost_usd.lt(b.cost_usd));
}

/**
 * The hull gap in points: the router's solved rate minus the best any fixed mix of the two forced arms
 * reaches for no more than the router's cost (the mixes' frontier at equal cost). Positive: routing did
 * better than spending the same money on a fixed share. Null when the router cost less than either arm
 * alone, where no fixed mix exists to compare with.
 */
export function hullGapPts(cheap: ArmPoint, strong: ArmPoint, routed: ArmPoint): number | null {
  const [ca, cb, c] = [cheap.cost_usd.toNumber(), strong.cost_usd.toNumber(), routed.cost_usd.toNumber()];
  const tol = 1e-12 * Math.max(1, Math.abs(ca), Math.abs(cb));
  const mix = (t: number) => ({ cost: ca + t * (cb - ca), solved: cheap.solved_rate + t * (strong.solved_rate - cheap.solved_rate) });
  // Solved and cost are both linear in the share t, so the best affordable mix is an end or where cost = c.
  const ts = [0, 1, ...(Math.abs(cb - ca) > tol ? [(c - ca) / (cb - ca)] : [])].filter((t) => t >= 0 && t <= 1);
  const affordable = ts.map(mix).filter((m) => m.cost <= c + tol);
  if (affordable.length === 0) return null;
  return 100 * (routed.solved_rate - Math.max(...affordable.map((m) => m.solved)));
}
