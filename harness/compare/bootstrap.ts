import { prngFromParts } from '../../runtime/providers/sim/index.ts';
import type { Interval } from '../../schemas/types/compare.ts';

/** How many resamples, at what confidence, from which seed. */
export interface BootstrapOptions {
  iterations: number;
  confidence: number;
  seed: number;
}

/** A percentile interval of statistic(B) − statistic(A); the artifact's `Interval` (schemas/compare.schema.json). */
export type BootstrapInterval = Interval;

/** The defaults of `bench compare`: 2000 resamples, 95%, seed 0. */
export const DEFAULT_BOOTSTRAP: BootstrapOptions = { iterations: 2000, confidence: 0.95, seed: 0 };

/** The q-quantile of sorted values, interpolating linearly between order statistics (Hyndman-Fan type 7). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new Error('quantile of no values');
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/**
 * Seeded percentile bootstrap of the difference B − A: each iteration resamples each arm's samples (one
 * per seed pass) with replacement, keeping its size, and records statistic(B*) − statistic(A*).
 * Null when either arm has no samples or fewer than half the resamples give a defined statistic.
 */
export function bootstrapCI<T>(
  samplesA: readonly T[],
  samplesB: readonly T[],
  statistic: (samples: readonly T[]) => number | null,
  options: BootstrapOptions,
): BootstrapInterval | null {
  if (samplesA.length === 0 || samplesB.length === 0) return null;
  // Seeded from the caller's seed only, so the same inputs and seed give the same interval on any machine.
  const prng = prngFromParts(['bench-compare-bootstrap', options.seed]);
  const resample = (xs: readonly T[]): T[] => Array.from({ length: xs.length }, () => xs[Math.floor(prng.next() * xs.length)]!);
  const diffs: number[] = [];
  for (let i = 0; i < options.iterations; i++) {
    const a = statistic(resample(samplesA));
    const b = statistic(resample(samplesB));
    if (a !== null && b !== null && Number.isFinite(a) && Number.isFinite(b)) diffs.push(b - a);
  }
  if (diffs.length * 2 < options.iterations) return null;
  diffs.sort((x, y) => x - y);
  const tail = (1 - options.confidence) / 2;
  return {
    low: quantile(diffs, tail),
    high: quantile(diffs, 1 - tail),
    confidence: options.confidence,
    samples_a: samplesA.length,
    samples_b: samplesB.length,
    iterations_used: diffs.length,
  };
}
