import type { SavingsResult } from '../../runtime/analytics/index.ts';
import type { Savings } from '../../schemas/types/report.ts';

/** Serializes a savings result: money as Decimal text. */
export function savingsJson(s: SavingsResult): Savings {
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
