import { Decimal } from 'decimal.js';
import { costOf, ratesExponent, scaledCostOf } from '../pricing/cost.ts';
import type { ModelRates, PriceTable } from '../pricing/rates.ts';
import type { Usage } from '../types/response.ts';

/** Token sums of the `llm.call_completed` rows of one model; `model` is null when rows lack one. */
export interface TokenGroup extends Usage {
  model: string | null;
  rows: number;
}

/** What `savings()` answers (harness-and-runtime.md §6); money is exact Decimal. */
export interface SavingsResult {
  actual_repriced_usd: Decimal;
  baseline_repriced_usd: Decimal;
  savings_usd: Decimal;
  /** Percent of the baseline saved (67.6 means 67.6 %); null when the baseline costs 0. */
  savings_pct: Decimal | null;
  rows_total: number;
  /** Rows whose model the table does not price; excluded from both sums. */
  rows_missing_from_price_table: number;
  pricing_version: string;
  baseline_model: string;
}

/** The counterfactual model has no price, so no savings can be computed. */
export class UnpricedBaselineError extends Error {
  constructor(
    readonly baselineModel: string,
    readonly pricingVersion: string,
    priced: readonly string[],
  ) {
    super(
      `baseline model '${baselineModel}' is not in price table ${pricingVersion}; priced models: ${priced.join(', ')}`,
    );
    this.name = 'UnpricedBaselineError';
  }
}

/**
 * Re-prices per-model token sums at current rates (actual) and at the baseline's rates (counterfactual:
 * same tokens, cache tokens at the baseline's cache rates). Exact because cost is linear in tokens.
 * `servedUsd` is what the rows a cache tier answered cost as recorded (a paid embedder's lookups): they
 * carry no tokens to re-price, and the lookup is the same whichever model would have answered, so it is
 * added to both sides.
 */
export function computeSavings(groups: readonly TokenGroup[], baselineModel: string, table: PriceTable, servedUsd: Decimal = new Decimal(0)): SavingsResult {
  const baselineRates = table.rates(baselineModel);
  if (!baselineRates) throw new UnpricedBaselineError(baselineModel, table.version, table.models());
  let actual = servedUsd;
  let baseline = servedUsd;
  const { priced, rowsTotal, rowsMissing } = pricedGroups(groups, table);
  for (const [g, rates] of priced) {
    actual = actual.plus(costOf(g, rates));
    baseline = baseline.plus(costOf(g, baselineRates));
  }
  return savingsFrom(actual, baseline, rowsTotal, rowsMissing, table.version, baselineModel);
}

/** The groups `table` prices, each with its rates, and the rows of all groups and of those it does not price. */
function pricedGroups(groups: readonly TokenGroup[], table: PriceTable): { priced: [TokenGroup, ModelRates][]; rowsTotal: number; rowsMissing: number } {
  const priced: [TokenGroup, ModelRates][] = [];
  let rowsTotal = 0;
  let rowsMissing = 0;
  for (const g of groups) {
    rowsTotal += g.rows;
    const rates = g.model === null ? undefined : table.rates(g.model);
    if (rates) priced.push([g, rates]);
    else rowsMissing += g.rows;
  }
  return { priced, rowsTotal, rowsMissing };
}

/**
 * A selection's actual and baseline costs as whole numbers of 10^(e − 6) USD (scaledCostOf), with its row counts
 * and the least Decimal precision among the rates priced: sums that add exactly, one session at a time.
 */
export interface ScaledSavings {
  actual: bigint;
  baseline: bigint;
  rows_total: number;
  rows_missing_from_price_table: number;
  precision: number;
}

/** Nothing priced yet: the sum of no sessions. */
export const NO_SCALED_SAVINGS: ScaledSavings = { actual: 0n, baseline: 0n, rows_total: 0, rows_missing_from_price_table: 0, precision: Infinity };

/** The finest power of ten of every rate `table` prices (ratesExponent), so any of its costs is whole at it; null when none is. */
export function tableExponent(table: PriceTable): number | null {
  let e: number | null = null;
  for (const model of table.models()) {
    const x = ratesExponent(table.rates(model)!);
    if (x !== null) e = e === null ? x : Math.min(e, x);
  }
  return e;
}

/** computeSavings' sums of `groups` as ScaledSavings at `e`; null when the baseline is unpriced or a cost is not whole at `e`. */
export function scaledSavingsOf(groups: readonly TokenGroup[], baselineModel: string, table: PriceTable, e: number): ScaledSavings | null {
  const baselineRates = table.rates(baselineModel);
  if (!baselineRates) return null;
  let actual = 0n;
  let baseline = 0n;
  let precision = (baselineRates.input.constructor as typeof Decimal).precision;
  const { priced, rowsTotal, rowsMissing } = pricedGroups(groups, table);
  for (const [g, rates] of priced) {
    const a = scaledCostOf(g, rates, e);
    const b = scaledCostOf(g, baselineRates, e);
    if (a === null || b === null) return null;
    actual += a;
    baseline += b;
    precision = Math.min(precision, (rates.input.constructor as typeof Decimal).precision);
  }
  return { actual, baseline, rows_total: rowsTotal, rows_missing_from_price_table: rowsMissing, precision };
}

/** The sums of two disjoint selections. */
export function addScaledSavings(x: ScaledSavings, y: ScaledSavings): ScaledSavings {
  return {
    actual: x.actual + y.actual,
    baseline: x.baseline + y.baseline,
    rows_total: x.rows_total + y.rows_total,
    rows_missing_from_price_table: x.rows_missing_from_price_table + y.rows_missing_from_price_table,
    precision: Math.min(x.precision, y.precision),
  };
}

/**
 * computeSavings' answer (no served rows) from the exact sums of the same tokens, when that answer is exact: every
 * cost costOf makes and every partial sum the Decimal chain adds is at most its total (no term is negative), so
 * when both totals fit Decimal's precision (and each rate class's) nothing was rounded on the way and the chain's
 * Decimals are these values. Null when a total is longer: only computeSavings then rounds as it did.
 */
export function savingsFromScaled(s: ScaledSavings, e: number, pricingVersion: string, baselineModel: string): SavingsResult | null {
  const actual = s.actual.toString();
  const baseline = s.baseline.toString();
  const precision = Math.min(s.precision, Decimal.precision);
  if (actual.length > precision || baseline.length > precision) return null;
  const actualUsd = new Decimal(`${actual}e${e - 6}`);
  const baselineUsd = new Decimal(`${baseline}e${e - 6}`);
  if (Decimal.rounding !== Decimal.ROUND_HALF_UP) return savingsFrom(actualUsd, baselineUsd, s.rows_total, s.rows_missing_from_price_table, pricingVersion, baselineModel);
  // The difference and the percentage from the integers: a report makes one per rep, workload and pass, and the
  // Decimal minus, division and product were most of each. The difference is exact in Decimal too (no longer
  // than the larger total), and the percentage is the quotient as dividedBy rounds it (times(100) only moves the point).
  const saved = s.baseline - s.actual;
  return {
    actual_repriced_usd: actualUsd,
    baseline_repriced_usd: baselineUsd,
    savings_usd: new Decimal(`${saved}e${e - 6}`),
    savings_pct: s.baseline === 0n ? null : new Decimal(roundedPercentText(saved, s.baseline, Decimal.precision)),
    rows_total: s.rows_total,
    rows_missing_from_price_table: s.rows_missing_from_price_table,
    pricing_version: pricingVersion,
    baseline_model: baselineModel,
  };
}

/** A savings result as a report holds it: each Decimal as its text (`toString`). */
export interface SavingsText {
  actual_repriced_usd: string;
  baseline_repriced_usd: string;
  savings_usd: string;
  savings_pct: string | null;
  rows_total: number;
  rows_missing_from_price_table: number;
  pricing_version: string;
  baseline_model: string;
}

/** `s` with each Decimal as its text. */
export function savingsText(s: SavingsResult): SavingsText {
  return {
    actual_repriced_usd: s.actual_repriced_usd.toString(),
    baseline_repriced_usd: s.baseline_repriced_usd.toString(),
    savings_usd: s.savings_usd.toString(),
    savings_pct: s.savings_pct === null ? null : s.savings_pct.toString(),
    rows_total: s.rows_total,
    rows_missing_from_price_table: s.rows_missing_from_price_table,
    pricing_version: s.pricing_version,
    baseline_model: s.baseline_model,
  };
}

/**
 * savingsText(savingsFromScaled(...)) written from the integers, without making a Decimal (a report writes one
 * per rep: four Decimals parsed and printed again each); null where savingsFromScaled is null.
 */
export function savingsTextFromScaled(s: ScaledSavings, e: number, pricingVersion: string, baselineModel: string): SavingsText | null {
  const precision = Math.min(s.precision, Decimal.precision);
  if (s.actual.toString().length > precision || s.baseline.toString().length > precision) return null;
  if (Decimal.rounding !== Decimal.ROUND_HALF_UP) return savingsText(savingsFromScaled(s, e, pricingVersion, baselineModel)!);
  const pct = s.baseline === 0n ? null : roundedPercent(s.baseline - s.actual, s.baseline, Decimal.precision);
  return {
    actual_repriced_usd: decimalText(s.actual, e - 6),
    baseline_repriced_usd: decimalText(s.baseline, e - 6),
    savings_usd: decimalText(s.baseline - s.actual, e - 6),
    savings_pct: pct === null ? null : decimalText(pct.coefficient, pct.exponent),
    rows_total: s.rows_total,
    rows_missing_from_price_table: s.rows_missing_from_price_table,
    pricing_version: pricingVersion,
    baseline_model: baselineModel,
  };
}

/**
 * `new Decimal(`${coefficient}e${exponent}`).toString()`, without the Decimal: the digits without trailing zeros,
 * in exponential notation when the leading digit's power of ten is at most Decimal.toExpNeg or at least toExpPos.
 */
export function decimalText(coefficient: bigint, exponent: number): string {
  if (coefficient === 0n) return '0';
  const negative = coefficient < 0n;
  let digits = (negative ? -coefficient : coefficient).toString();
  let end = digits.length;
  while (digits.charCodeAt(end - 1) === 48) end -= 1;
  const e = digits.length - 1 + exponent; // the leading digit's power of ten
  digits = digits.slice(0, end);
  let text: string;
  if (e <= Decimal.toExpNeg || e >= Decimal.toExpPos) text = `${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : ''}${e < 0 ? 'e' : 'e+'}${e}`;
  else if (e < 0) text = `0.${'0'.repeat(-e - 1)}${digits}`;
  else if (e + 1 >= digits.length) text = digits + '0'.repeat(e + 1 - digits.length);
  else text = `${digits.slice(0, e + 1)}.${digits.slice(e + 1)}`;
  return negative ? `-${text}` : text;
}

/**
 * 100 · `num` / `den` (`den` > 0) as Decimal text: the quotient rounded to `precision` significant digits, half
 * away from zero (Decimal's ROUND_HALF_UP, as `dividedBy` rounds it), then times 100, which rounds nothing.
 */
export function roundedPercentText(num: bigint, den: bigint, precision: number): string {
  const { coefficient, exponent } = roundedPercent(num, den, precision);
  return coefficient === 0n ? '0' : `${coefficient}e${exponent}`;
}

/** roundedPercentText's value as coefficient · 10^exponent. */
function roundedPercent(num: bigint, den: bigint, precision: number): { coefficient: bigint; exponent: number } {
  if (num === 0n) return { coefficient: 0n, exponent: 0 };
  const magnitude = num < 0n ? -num : num;
  // The quotient scaled by 10^k has `precision` or `precision` + 1 digits before the point; one fewer power when + 1.
  const k0 = precision + den.toString().length - magnitude.toString().length;
  const k = integerQuotient(magnitude, den, k0).q.toString().length > precision ? k0 - 1 : k0;
  const { q, r, d } = integerQuotient(magnitude, den, k);
  // Half or more of the last digit left over rounds the magnitude up (a tie away from zero).
  const rounded = 2n * r >= d ? q + 1n : q;
  return { coefficient: num < 0n ? -rounded : rounded, exponent: 2 - k };
}

/** floor(n · 10^k / d) with its remainder, over the divisor the remainder is of (d · 10^−k when k < 0). */
function integerQuotient(n: bigint, d: bigint, k: number): { q: bigint; r: bigint; d: bigint } {
  const num = k >= 0 ? n * 10n ** BigInt(k) : n;
  const den = k >= 0 ? d : d * 10n ** BigInt(-k);
  const q = num / den;
  return { q, r: num - q * den, d: den };
}

/** Exact Decimal sum of several results for one baseline (the report's aggregate over workloads). */
export function sumSavings(results: readonly SavingsResult[], baselineModel: string, pricingVersion: string): SavingsResult {
  let actual = new Decimal(0);
  let baseline = new Decimal(0);
  let rowsTotal = 0;
  let rowsMissing = 0;
  for (const r of results) {
    if (r.baseline_model !== baselineModel || r.pricing_version !== pricingVersion)
      throw new Error(`cannot add savings for ${r.baseline_model}@${r.pricing_version} to ${baselineModel}@${pricingVersion}`);
    actual = actual.plus(r.actual_repriced_usd);
    baseline = baseline.plus(r.baseline_repriced_usd);
    rowsTotal += r.rows_total;
    rowsMissing += r.rows_missing_from_price_table;
  }
  return savingsFrom(actual, baseline, rowsTotal, rowsMissing, pricingVersion, baselineModel);
}

function savingsFrom(
  actual: Decimal,
  baseline: Decimal,
  rowsTotal: number,
  rowsMissing: number,
  pricingVersion: string,
  baselineModel: string,
): SavingsResult {
  const savings = baseline.minus(actual);
  return {
    actual_repriced_usd: actual,
    baseline_repriced_usd: baseline,
    savings_usd: savings,
    savings_pct: baseline.isZero() ? null : savings.dividedBy(baseline).times(100),
    rows_total: rowsTotal,
    rows_missing_from_price_table: rowsMissing,
    pricing_version: pricingVersion,
    baseline_model: baselineModel,
  };
}
