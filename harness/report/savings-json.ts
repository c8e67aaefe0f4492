import { savingsText, type SavingsResult } from '../../runtime/analytics/index.ts';
import type { Savings } from '../../schemas/types/report.ts';

/** Serializes a savings result: money as Decimal text. */
export function savingsJson(s: SavingsResult): Savings {
  return savingsText(s);
}
