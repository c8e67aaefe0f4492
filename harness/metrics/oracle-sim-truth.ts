import { sigmoid } from '../../runtime/providers/sim/plan-choice.ts';
import type { SimScript } from '../../runtime/providers/sim/sim-script.ts';

/** The simulator's slope: P(competent) = sigmoid(10 · (competence − difficulty)) (harness-and-runtime.md §3). */
const SLOPE = 10;

/** log(1 + e^x) without overflow. */
function softplus(x: number): number {
  return x > 30 ? x : Math.log1p(Math.exp(x));
}

/**
 * The exact P(competent plan) of one turn, as the simulated provider draws it: at temperature T the
 * margin is perturbed by T·u with u uniform in [−0.5, 0.5), so P is the mean of the sigmoid over u,
 * which has the closed form (softplus(k(m + T/2)) − softplus(k(m − T/2))) / (kT). No sampling.
 */
export function turnCompetentProbability(competence: number, difficulty: number, temperature: number): number {
  const margin = competence - difficulty;
  if (temperature <= 0) return sigmoid(SLOPE * margin);
  const k = SLOPE;
  return (softplus(k * (margin + temperature / 2)) - softplus(k * (margin - temperature / 2))) / (k * temperature);
}

/**
 * P(a rep is solved) for a model that plays every turn of the script, workers' turns included: the
 * product of the turns' P(competent). This is the sim's truth under one assumption, stated in
 * docs/decisions.md: a rep is solved iff every turn followed its competent plan.
 */
export function scriptSolvedProbability(script: SimScript, competence: number, temperature: number): number {
  return solvedProbability(scriptDifficulties(script), competence, temperature);
}

/** The difficulty of every turn a model plays in the script, workers' turns included, in that order: all the truth reads of it. */
export function scriptDifficulties(script: SimScript): number[] {
  return [...script.turns, ...(script.workers ?? []).flatMap((w) => w.turns)].map((t) => t.difficulty);
}

/** `scriptSolvedProbability` from the script's difficulties (`scriptDifficulties`): the same product, in the same order. */
export function solvedProbability(difficulties: readonly number[], competence: number, temperature: number): number {
  return difficulties.reduce((p, d) => p * turnCompetentProbability(competence, d, temperature), 1);
}
