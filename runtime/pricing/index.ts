export type { ModelRates, PriceTable } from './rates.ts';
export { costOf, ratesExponent, scaledCostOf } from './cost.ts';
export { createPriceTable, DEFAULT_PRICE_TABLE_PATH, loadPriceTable, parsePriceTable } from './price-table.ts';
export { Decimal } from 'decimal.js';
