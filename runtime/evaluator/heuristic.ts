import { gatedScore } from './gate.ts';
import type { HeuristicRubric, SignalName } from './rubric.ts';

/** Values in [0,1] for the signals that apply to a subject; absent signals do not count. */
export type SignalValues = Partial<Record<SignalName, number>>;

/** A heuristic verdict before it is put on the bus. */
export interface HeuristicScore {
  score: number;
  confidence: number;
  /** Each applied signal with its value and weight, for the eval.completed `signals`. */
  applied: { name: SignalName; value: number; weight: number }[];
}

/**
 * Without a `check` signal: score = Σ w·s / Σ w over the signals present. With one, the check gates the
 * verdict: score = gatedScore(check = 1, Σ w·s / Σ w over the other signals), so a rep whose check did not
 * pass scores below 0.5 whatever its other signals (gate.ts). confidence = base + (1 − base) · content
 * weight present / content_weight_max (harness-and-runtime.md §5: 0.5 + 0.5 · w/10), the check included.
 */
export function scoreSignals(values: SignalValues, rubric: HeuristicRubric): HeuristicScore {
  const applied: HeuristicScore['applied'] = [];
  let num = 0;
  let den = 0;
  let content = 0;
  let check: number | undefined;
  for (const name of Object.keys(rubric.signals) as SignalName[]) {
    const value = values[name];
    if (value === undefined) continue;
    if (!(value >= 0 && value <= 1)) throw new RangeError(`signal ${name} must be in [0,1], got ${value}`);
    const { weight, content: isContent } = rubric.signals[name];
    applied.push({ name, value, weight });
    if (isContent) content += weight;
    if (name === 'check') {
      check = value;
      continue;
    }
    num += weight * value;
    den += weight;
  }
  const { base, content_weight_max } = rubric.confidence;
  const confidence = Math.min(1, base + (1 - base) * (content / content_weight_max));
  const rest = den === 0 ? 0 : num / den;
  // A check passes or it does not: any value short of 1 is unsolved.
  return { score: check === undefined ? rest : gatedScore(check === 1, rest), confidence, applied };
}

/** 1 when `needle` occurs in `text`, case-insensitive. */
export function substringSignal(needle: string, text: string): number {
  return text.toLowerCase().includes(needle.toLowerCase()) ? 1 : 0;
}

/** Fraction of `tokens` present in `text` (case-insensitive); undefined when there are none. */
export function groundingSignal(tokens: readonly string[], text: string): number | undefined {
  if (tokens.length === 0) return undefined;
  const lower = text.toLowerCase();
  return tokens.filter((t) => lower.includes(t.toLowerCase())).length / tokens.length;
}

/** 0 when any forbidden token appears in `text`, else 1; undefined when there are none. */
export function forbiddenGroundingSignal(tokens: readonly string[], text: string): number | undefined {
  if (tokens.length === 0) return undefined;
  const lower = text.toLowerCase();
  return tokens.some((t) => lower.includes(t.toLowerCase())) ? 0 : 1;
}

/** 1 − failed / total, and 1 when no tool was called. */
export function toolHealthSignal(failed: number, total: number): number {
  return total === 0 ? 1 : 1 - failed / total;
}
