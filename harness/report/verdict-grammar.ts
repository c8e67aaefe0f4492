// One rule for every claim a report makes from an interval: the words never say more than the interval allows.
// Headline, compare, signal and the matrix reports all phrase their verdicts here. A claim needs an interval of
// positive width: a zero-width one (every unit the same) says "no variation: no claim", whatever side it is on.

/** A point estimate with its interval; `low`/`high` null when there is none (fewer than 2 clusters). */
export interface IntervalFigure {
  estimate: number;
  low: number | null;
  high: number | null;
}

/** The default non-inferiority margin, in points of solved rate (`--margin`). */
export const DEFAULT_MARGIN_PTS = 5;

/**
 * How many paired units in all would decide a non-inferiority claim that is inconclusive now, given the
 * difference in points, its interval, the margin and the units behind it; null when it cannot say. The
 * grammar prints the units still to collect (this minus the units in hand). Pluggable so the power module
 * (`bench plan`) can replace the normal approximation below.
 */
export type UnitsNeeded = (d: IntervalFigure, marginPts: number, units: number) => number | null;

/**
 * Normal approximation: the interval's half-width shrinks as 1/√n, so the units that bring it down to the
 * distance between the estimate and the farther decision boundary (−margin for non-inferiority, 0 for
 * "fewer": the verdict on that side is the one the interval can reach) are n · (half-width / distance)². It keeps the estimate fixed (50% power), so it is a floor.
 */
export const normalUnitsNeeded: UnitsNeeded = (d, marginPts, units) => {
  if (d.low === null || d.high === null || units < 1) return null;
  const half = (d.high - d.low) / 2;
  const distance = Math.max(d.estimate + marginPts, -d.estimate);
  if (!(half > 0) || !(distance > 0)) return null;
  return Math.ceil(units * (half / distance) ** 2);
};

const fixed = (x: number, digits: number) => (Object.is(Math.round(x * 10 ** digits), -0) || Math.round(x * 10 ** digits) === 0 ? 0 : x).toFixed(digits);

/** A signed figure in points with a true minus sign: `+2`, `−11`, `0`. */
export function signedPts(x: number, digits = 0): string {
  const r = fixed(Math.abs(x), digits);
  return `${x > 0 && Number(r) !== 0 ? '+' : x < 0 && Number(r) !== 0 ? '−' : ''}${r}`;
}

/** A percent to whole units with a true minus sign: `17`, `−1`. */
export function plainPct(x: number, digits = 0): string {
  const r = fixed(Math.abs(x), digits);
  return `${x < 0 && Number(r) !== 0 ? '−' : ''}${r}`;
}

/**
 * True when the ends are one point. Ends that differ by floating-point rounding alone (a variance of 1e-32
 * gives ends 1e-16 apart) are one point too: printed, they would read "[86, 86]" and claim a spread there is not.
 */
export function zeroWidth(low: number, high: number): boolean {
  return Math.abs(high - low) <= 1e-12 * Math.max(1, Math.abs(low), Math.abs(high));
}

/** True when the interval is a single point: both sides were constant, so there is no spread to show. */
export function noVariation(f: IntervalFigure): boolean {
  return f.low !== null && f.high !== null && zeroWidth(f.low, f.high);
}

/** True when the interval can carry a claim: it exists and has positive width. */
export function decisive(f: IntervalFigure): f is IntervalFigure & { low: number; high: number } {
  return f.low !== null && f.high !== null && f.high > f.low && !zeroWidth(f.low, f.high);
}

/** What every claim says of a zero-width interval. */
export const NO_VARIATION_NO_CLAIM = 'no variation: no claim';

/** `[lo, hi]` through `fmt`, `(no variation)` for a single point, or `(no interval: …)` when there is none. */
export function intervalText(f: IntervalFigure, fmt: (x: number) => string): string {
  if (f.low === null || f.high === null) return '(no interval: fewer than 2 workloads)';
  return noVariation(f) ? '(no variation)' : `[${fmt(f.low)}, ${fmt(f.high)}]`;
}

/** What a savings interval allows. */
export type SavingsClaimKind = 'saved' | 'no_saving_shown' | 'cost_more' | 'no_variation';

/** Which savings claim the interval allows: saved only when the whole interval is above 0, cost more when below; none from a zero-width one. */
export function savingsClaimKind(s: IntervalFigure): SavingsClaimKind {
  if (noVariation(s)) return 'no_variation';
  if (!decisive(s)) return 'no_saving_shown';
  if (s.low > 0) return 'saved';
  if (s.high < 0) return 'cost_more';
  return 'no_saving_shown';
}

/** "saved 23% [6, 41]", "no saving shown (17% [−1, 35])", "cost more (savings −12% [−20, −4])" or "no variation: no claim (savings 67%, an interval of zero width)". */
export function savingsClaim(s: IntervalFigure): string {
  const figure = `${plainPct(s.estimate)}% ${intervalText(s, plainPct)}`;
  switch (savingsClaimKind(s)) {
    case 'no_variation':
      return `${NO_VARIATION_NO_CLAIM} (savings ${plainPct(s.estimate)}%, an interval of zero width)`;
    case 'saved':
      return `saved ${figure}`;
    case 'cost_more':
      return `cost more (savings ${figure})`;
    case 'no_saving_shown':
      return `no saving shown (${figure})`;
  }
}

/** What a solved-rate difference against the strong arm allows, with the margin in points. */
export type NonInferiorityKind = 'non_inferior' | 'fewer' | 'inconclusive' | 'no_variation';

/**
 * Non-inferior when the whole interval is above −margin; fewer when it is below 0; inconclusive otherwise.
 * Neither from a zero-width interval (no variation) nor from one missing (fewer than 2 workloads).
 */
export function nonInferiorityKind(d: IntervalFigure, marginPts: number): NonInferiorityKind {
  if (noVariation(d)) return 'no_variation';
  if (!decisive(d)) return 'inconclusive';
  if (d.low > -marginPts) return 'non_inferior';
  if (d.high < 0) return 'fewer';
  return 'inconclusive';
}

/** Options of solvedRateClaim. */
export interface SolvedRateClaimOptions {
  marginPts?: number;
  /** Paired units behind the interval (for the units-needed figure). */
  units: number;
  unitsNeeded?: UnitsNeeded;
}

/** A solved-rate claim as a clause: "solved rate inconclusive: …", but "solved fewer tasks: …" (never "solved rate solved …"). */
export function solvedRateClause(claim: string): string {
  if (claim.startsWith(NO_VARIATION_NO_CLAIM)) return `solved rate, ${claim}`;
  return claim.startsWith('solved ') ? claim : `solved rate ${claim}`;
}

/**
 * The units still to collect, in words: "N more paired units would be needed to decide (T in all)", or why
 * more units of this design cannot decide (no estimate, or the units in hand already suffice under the
 * normal approximation, so the interval is wide because it rests on few workloads).
 */
export function unitsStillNeeded(total: number | null, units: number): string {
  if (total === null) return 'the design cannot decide: no estimate of the paired units needed';
  const more = total - units;
  if (more <= 0) return `the design cannot decide by adding units: the ${units} paired units in hand would suffice under a normal interval, yet the interval on so few workloads stays wide; add workloads`;
  return `${more} more paired unit${more === 1 ? '' : 's'} would be needed to decide (${total} in all)`;
}

/**
 * The solved-rate claim against the strong arm as non-inferiority at a declared margin:
 * "non-inferior (within 5 pts): −1 [−4, +2]", "solved fewer tasks: −11 [−24, −2]" or
 * "inconclusive: somewhere between −24 and +2 pts; N paired units would be needed to decide".
 */
export function solvedRateClaim(d: IntervalFigure, o: SolvedRateClaimOptions): string {
  const margin = o.marginPts ?? DEFAULT_MARGIN_PTS;
  const figure = `${signedPts(d.estimate)} ${intervalText(d, signedPts)} pts`;
  switch (nonInferiorityKind(d, margin)) {
    case 'no_variation':
      return `${NO_VARIATION_NO_CLAIM} (${signedPts(d.estimate)} pts, an interval of zero width from ${o.units} paired unit${o.units === 1 ? '' : 's'}; margin ${margin} pts)`;
    case 'non_inferior':
      // Both can hold (an interval within (−margin, 0)): say so, never hide the loss behind "non-inferior".
      return d.high! < 0
        ? `non-inferior (within ${margin} pts), though it solved fewer tasks: ${figure}`
        : d.low! > 0
          ? `non-inferior (within ${margin} pts), and solved more tasks: ${figure}`
          : `non-inferior (within ${margin} pts): ${figure}`;
    case 'fewer':
      return `solved fewer tasks: ${figure}`;
    case 'inconclusive': {
      if (d.low === null || d.high === null) return `inconclusive (margin ${margin} pts): ${signedPts(d.estimate)} pts (no interval: fewer than 2 workloads)`;
      const need = unitsStillNeeded((o.unitsNeeded ?? normalUnitsNeeded)(d, margin, o.units), o.units);
      return `inconclusive: somewhere between ${signedPts(d.low)} and ${signedPts(d.high)} pts; ${need} (non-inferiority margin ${margin} pts)`;
    }
  }
}

/** What a difference from a reference (the random router at the same mix) allows, in points (`digits` decimals, default whole points). */
export function aboveClaim(d: IntervalFigure, reference: string, digits = 0): string {
  const pts = (x: number) => signedPts(x, digits);
  const figure = `${pts(d.estimate)} pts ${intervalText(d, pts)}`;
  if (noVariation(d)) return `${pts(d.estimate)} pts (${NO_VARIATION_NO_CLAIM}) against ${reference}`;
  if (!decisive(d)) return `${figure} against ${reference}`;
  if (d.low > 0) return `${figure} above ${reference}`;
  if (d.high < 0) return `${figure}: below ${reference}`;
  return `${figure}: not distinguishable from ${reference}`;
}
