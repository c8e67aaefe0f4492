import type { SimPlan, SimTurn } from '../../../schemas/types/sim.ts';
import type { Prng } from './prng.ts';

/** The logistic function. */
export function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

/**
 * P(competent plan) = sigmoid(10 · (competence − difficulty + temperature · noise)), noise a PRNG
 * draw in [−0.5, 0.5). At temperature 0 there is no perturbation: sigmoid(10 · (c − d)) exactly
 * (harness-and-runtime.md §3). The slope 10 makes a 0.25 competence gap swing P by ~0.4.
 */
export function competentProbability(competence: number, difficulty: number, temperature: number, noise: number): number {
  return sigmoid(10 * (competence - difficulty + temperature * noise));
}

/** Which plan the simulated model follows on a turn, and the odds it had. */
export interface PlanChoice {
  plan: SimPlan;
  competent: boolean;
  /** P(competent) after the temperature perturbation. */
  pCompetent: number;
}

/**
 * Chooses a plan with exactly three draws from `prng` (noise, competent?, which mistake), always
 * drawn so the rest of the stream does not depend on the branch taken. Mistakes are picked by
 * `weight` (default 1). The script must have exactly one competent plan (loadSimScript checks).
 */
export function choosePlan(turn: SimTurn, competence: number, temperature: number, prng: Prng): PlanChoice {
  const noise = prng.next() - 0.5;
  const uCompetent = prng.next();
  const uMistake = prng.next();
  const pCompetent = competentProbability(competence, turn.difficulty, temperature, noise);
  const competentPlan = turn.plans.find((p) => p.competent === true);
  const mistakes = turn.plans.filter((p) => p.competent !== true);
  if (!competentPlan || mistakes.length === 0) throw new Error('a sim turn needs one competent plan and at least one mistake');
  if (uCompetent < pCompetent) return { plan: competentPlan, competent: true, pCompetent };
  const total = mistakes.reduce((s, p) => s + (p.weight ?? 1), 0);
  let target = uMistake * total;
  for (const p of mistakes) {
    target -= p.weight ?? 1;
    if (target < 0) return { plan: p, competent: false, pCompetent };
  }
  // Floating-point leftovers land on the last mistake.
  return { plan: mistakes[mistakes.length - 1]!, competent: false, pCompetent };
}
