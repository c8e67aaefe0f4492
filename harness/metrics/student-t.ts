/**
 * Student's t distribution, enough for two-sided confidence intervals with few clusters: the CDF through
 * the regularized incomplete beta function (continued fraction, modified Lentz) and the quantile by bisection.
 */

// Lanczos approximation (g = 7, n = 9) of ln Γ(x) for x > 0.
const LANCZOS = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];

/** ln Γ(x) for x > 0. */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let s = LANCZOS[0]!;
  for (let i = 1; i < LANCZOS.length; i++) s += LANCZOS[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(s);
}

/** Continued fraction of the incomplete beta function (modified Lentz). */
function betaFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < 1e-15) break;
  }
  return h;
}

/** The regularized incomplete beta function I_x(a, b), x in [0, 1]. */
export function incompleteBeta(x: number, a: number, b: number): number {
  return incompleteBetaWith(x, a, b, logGamma(a + b) - logGamma(a) - logGamma(b));
}

/** incompleteBeta with ln Γ(a+b) − ln Γ(a) − ln Γ(b) given: constant over a quantile's bisection, so made once there. */
function incompleteBetaWith(x: number, a: number, b: number, logBetaInverse: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logBetaInverse + a * Math.log(x) + b * Math.log(1 - x));
  // The fraction converges fast on this side of the mean; use the symmetry I_x(a,b) = 1 − I_{1−x}(b,a) otherwise.
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(x, a, b)) / a : 1 - (front * betaFraction(1 - x, b, a)) / b;
}

/** ln Γ(df/2 + 1/2) − ln Γ(df/2) − ln Γ(1/2): studentTCdf's beta constant for `df`. */
function tLogBetaInverse(df: number): number {
  return logGamma(df / 2 + 0.5) - logGamma(df / 2) - logGamma(0.5);
}

/** P(T ≤ t) for Student's t with `df` degrees of freedom. */
export function studentTCdf(t: number, df: number): number {
  return tCdf(t, df, tLogBetaInverse(df));
}

function tCdf(t: number, df: number, logBetaInverse: number): number {
  const tail = 0.5 * incompleteBetaWith(df / (df + t * t), df / 2, 0.5, logBetaInverse);
  return t >= 0 ? 1 - tail : tail;
}

/** Quantiles found, by level and degrees of freedom: a report's intervals ask the same few again (7 asks, 4 distinct, in a nightly A3 report). */
const quantiles = new Map<string, number>();
/** Past this many kept, the memo starts afresh (a long process asking ever new degrees of freedom stays bounded). */
const MAX_QUANTILES = 4096;

/** The p-quantile of Student's t with `df` > 0 degrees of freedom (p in (0, 1)). */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`quantile level must be in (0,1), got ${p}`);
  if (!(df > 0)) throw new RangeError(`degrees of freedom must be > 0, got ${df}`);
  if (p < 0.5) return -studentTQuantile(1 - p, df);
  // A number's text is its shortest round trip: one key per (p, df), so a kept quantile is the one bisection gives.
  const key = `${p} ${df}`;
  let q = quantiles.get(key);
  if (q === undefined) {
    if (quantiles.size >= MAX_QUANTILES) quantiles.clear();
    quantiles.set(key, (q = bisectQuantile(p, df)));
  }
  return q;
}

/** Student's t density at `t`, from the CDF's beta constant: ln f = c − ½ ln df − (df+1)/2 · ln(1 + t²/df). */
function tDensity(t: number, df: number, logBetaInverse: number): number {
  return Math.exp(logBetaInverse - 0.5 * Math.log(df) - ((df + 1) / 2) * Math.log1p((t * t) / df));
}

/** How much clearer of `p` than tCdf's rounding (~1e-16 where a bracket is made) a bracket's ends must be, each on its side. */
const CLEAR = 1e-13;

/**
 * Two points on each side of the p-quantile: every t at or below `below` has tCdf(t) < p and every t at or above
 * `above` has tCdf(t) ≥ p, since tCdf is there clear of p by far more than its rounding error and the CDF is
 * monotone. Newton's method from `start` (a point below the quantile, where the CDF is concave: it climbs to the
 * quantile from below); null when it does not settle within 8 steps or an end is not clear of p.
 */
function quantileBracket(p: number, df: number, c: number, start: number, cdf: (t: number) => number): { below: number; above: number } | null {
  let t = start;
  for (let i = 0; i < 8; i++) {
    const step = (p - cdf(t)) / tDensity(t, df, c);
    if (!Number.isFinite(step)) return null;
    t += step;
    // Wide enough that the CDF moves by 1000·CLEAR across each half; Newton's error after a step is about the step squared.
    const width = Math.max(1e-10, (1000 * CLEAR) / (tDensity(t, df, c) * t));
    if (Math.abs(step) <= 1e-3 * width * t) {
      // A hundred times narrower first, when its ends are clear of p too: each halving inside the bracket is a CDF
      // evaluation of the bisection (a report's quantile 22 → 15-16). Where the CDF's rounding is coarser
      // (p = 0.999, df ≥ 100) only the wide one's ends are clear.
      for (const w of [width / 100, width]) {
        const below = t * (1 - w);
        const above = t * (1 + w);
        if (p - cdf(below) > CLEAR && cdf(above) - p > CLEAR) return { below, above };
      }
      return null;
    }
  }
  return null;
}

/**
 * studentTQuantile by bisection on the CDF, to 1e-12 relative (p ≥ 0.5). Every step of the bisection is kept; at
 * the usual levels (p ≥ 0.9, df ≤ 1000) a step whose midpoint lies outside a bracket of the quantile is decided by
 * the bracket, without evaluating the CDF there (about half of a quantile's 40-odd evaluations), so the answer is
 * the plain bisection's to the bit. `onEvaluate` is called at each evaluation of the CDF (tests count them).
 */
export function bisectQuantile(p: number, df: number, onEvaluate?: () => void): number {
  const c = tLogBetaInverse(df);
  const cdf = (t: number) => {
    onEvaluate?.();
    return tCdf(t, df, c);
  };
  let lo = 0;
  let hi = 1;
  while (cdf(hi) < p) hi *= 2;
  // Near 0.5 or with a very large df the CDF's rounding is coarse (x = df/(df + t²) keeps few digits of t), so no bracket there.
  const bracket = p >= 0.9 && df <= 1000 && hi >= 2 ? quantileBracket(p, df, c, hi / 2, cdf) : null;
  const below = (t: number) => (bracket && t <= bracket.below ? true : bracket && t >= bracket.above ? false : cdf(t) < p);
  for (let i = 0; i < 200 && hi - lo > 1e-12 * Math.max(1, hi); i++) {
    const mid = (lo + hi) / 2;
    if (below(mid)) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}
