import { studentTQuantile } from './student-t.ts';

/**
 * Sample size for the non-inferiority verdict (issue 23 item 6). A paired difference d (routed − strong,
 * in points) with margin M is decided when its interval excludes −M ("non-inferior") or excludes 0 from
 * above ("solved fewer"). An interval of half-width h around d decides when h < max(d + M, −d): the
 * distance from d to the farther of the two boundaries, since the verdict on that side (non-inferior when d
 * is above −M/2, solved fewer below) is the one the interval can reach. With a per-unit standard deviation σ (the standard
 * error times √n, so any clustering is already in it), n units give SE = σ/√n, and deciding with the
 * stated power needs (z_{(1+c)/2} + z_power) · σ/√n ≤ max(d + M, −d).
 */

// Acklam's rational approximation of the standard normal quantile (relative error below 1.2e-9).
const A = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
const B = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
const C = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
const D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];

/** The p-quantile of the standard normal distribution, p in (0, 1). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`quantile level must be in (0,1), got ${p}`);
  const low = 0.02425;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((C[0]! * q + C[1]!) * q + C[2]!) * q + C[3]!) * q + C[4]!) * q + C[5]!) / ((((D[0]! * q + D[1]!) * q + D[2]!) * q + D[3]!) * q + 1);
  }
  if (p > 1 - low) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return ((((((A[0]! * r + A[1]!) * r + A[2]!) * r + A[3]!) * r + A[4]!) * r + A[5]!) * q) / (((((B[0]! * r + B[1]!) * r + B[2]!) * r + B[3]!) * r + B[4]!) * r + 1);
}

/** The half-width an interval around `observedDiff` must stay under to decide at `margin` (both in points). */
export function decisiveHalfWidth(observedDiff: number, margin: number): number {
  if (!(margin > 0)) throw new RangeError(`the non-inferiority margin must be > 0 points, got ${margin}`);
  return Math.max(observedDiff + margin, -observedDiff);
}

/** What `unitsNeededForNonInferiority` needs: the observed difference and either its interval or σ per unit. */
export interface NonInferiorityInput {
  /** The observed paired difference routed − strong, in points. */
  observedDiff: number;
  /** The non-inferiority margin in points (> 0), e.g. 5. */
  margin: number;
  /** Paired units behind the observed interval. */
  n: number;
  /** The observed interval's half-width in points (with `df`); or give `sdPerUnit`. */
  halfWidth?: number;
  /** Degrees of freedom of the observed interval's t quantile (clusters − 1); default: normal. */
  df?: number;
  /** σ per unit in points: SE · √n. Overrides `halfWidth`. */
  sdPerUnit?: number;
  /** Interval level (default 0.95). */
  confidence?: number;
  /** Chance the planned interval decides when the true difference is the observed one (default 0.8). */
  power?: number;
}

/** The paired units needed, and what that estimate rests on. */
export interface NonInferiorityNeed {
  /** Units needed (a whole number ≥ 2), or null when the per-unit σ is 0 (no variation: more units change nothing). */
  units: number | null;
  /** σ per unit in points that the estimate uses. */
  sdPerUnit: number;
  /** The half-width that decides at the observed difference. */
  decisiveHalfWidth: number;
  confidence: number;
  power: number;
}

/**
 * The paired units needed to decide non-inferiority at `margin` (normal approximation, the observed
 * difference taken as the truth): n = ((z_{(1+c)/2} + z_power) · σ / max(d + M, −d))², rounded up.
 */
export function unitsNeededForNonInferiority(input: NonInferiorityInput): NonInferiorityNeed {
  const confidence = input.confidence ?? 0.95;
  const power = input.power ?? 0.8;
  if (!(input.n >= 1)) throw new RangeError(`n must be >= 1 unit, got ${input.n}`);
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence must be in (0,1), got ${confidence}`);
  if (!(power >= 0.5 && power < 1)) throw new RangeError(`power must be in [0.5,1), got ${power}`);
  const h = decisiveHalfWidth(input.observedDiff, input.margin);
  let sd: number;
  if (input.sdPerUnit !== undefined) sd = input.sdPerUnit;
  else if (input.halfWidth !== undefined) {
    const crit = input.df !== undefined ? studentTQuantile((1 + confidence) / 2, input.df) : normalQuantile((1 + confidence) / 2);
    sd = (input.halfWidth / crit) * Math.sqrt(input.n);
  } else throw new RangeError('give halfWidth (the observed interval) or sdPerUnit');
  if (!(sd >= 0) || !Number.isFinite(sd)) throw new RangeError(`the per-unit standard deviation must be finite and >= 0, got ${sd}`);
  if (sd === 0) return { units: null, sdPerUnit: 0, decisiveHalfWidth: h, confidence, power };
  const z = normalQuantile((1 + confidence) / 2) + (power > 0.5 ? normalQuantile(power) : 0);
  return { units: Math.max(2, Math.ceil(((z * sd) / h) ** 2 - 1e-9)), sdPerUnit: sd, decisiveHalfWidth: h, confidence, power };
}
