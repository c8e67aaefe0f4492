import { Decimal } from 'decimal.js';
import { costOf } from '../pricing/cost.ts';
import type { PriceTable } from '../pricing/rates.ts';
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
  let rowsTotal = 0;
  let rowsMissing = 0;
  for (const g of groups) {
    rowsTotal += g.rows;
    const rates = g.model === null ? undefined : table.rates(g.model);
    if (!rates) {
      rowsMissing += g.rows;
      continue;
    }
    actual = actual.plus(costOf(g, rates));
    baseline = baseline.plus(costOf(g, baselineRates));
  }
  return savingsFrom(actual, baseline, rowsTotal, rowsMissing, table.version, baselineModel);
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
