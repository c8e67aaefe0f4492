export { createAnalytics } from './analytics.ts';
export type { Analytics, CacheEffectiveness, RouteChoiceRow, RouteDecisionRow, RoutingSummary, SemanticCacheSummary, UsageCounts } from './analytics.ts';
export { computeSavings, savingsText, sumSavings, UnpricedBaselineError } from './savings.ts';
export type { SavingsResult, SavingsText, TokenGroup } from './savings.ts';
export type { EventSelector, TimeWindow } from './selector.ts';
export { ensureAnalyticsIndexes, LLM_USAGE_INDEX, LLM_USAGE_INDEX_DDL } from './indexes.ts';
