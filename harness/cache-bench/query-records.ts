// The per-query records of a stream run as the JSON report keeps them (snake_case, schema
// cache-stream-report.schema.json#/definitions/query_record), and back: `bench analyze --stream-report`
// recomputes every stream figure from them.
import type { QueryRecord as QueryRecordJson } from '../../schemas/types/cache-stream-report.ts';
import type { QueryRecord } from './stream-metrics.ts';

export type { QueryRecordJson };

/** One record as the report writes it. */
export function recordToJson(r: QueryRecord): QueryRecordJson {
  return {
    id: r.id,
    class: r.class,
    repeat: r.repeat,
    expect_miss: r.expectMiss,
    served_by: r.servedBy,
    correct: r.correct,
    explored: r.explored,
    similarity: r.similarity,
    threshold: r.threshold,
    matched_query: r.matchedQuery,
    miss_reason: r.missReason,
    cost_usd: r.costUsd,
    spent_usd: r.spentUsd,
    embed_cost_usd: r.embedCostUsd ?? '0',
    lookup_us: r.lookupUs,
    exact_lookup_us: r.exactLookupUs,
    embed_us: r.embedUs,
    search_us: r.searchUs,
    tier2_consulted: r.tier2Consulted,
    ...(r.steps ? { steps: r.steps.map((s) => ({ key: s.key, type: s.type, repeat: s.repeat, served: s.served, correct: s.correct, cost_usd: s.costUsd })) } : {}),
  };
}

/** One record read back from a report (already schema-validated). */
export function recordFromJson(j: QueryRecordJson): QueryRecord {
  return {
    id: j.id,
    class: j.class,
    repeat: j.repeat,
    expectMiss: j.expect_miss,
    servedBy: j.served_by,
    correct: j.correct,
    explored: j.explored,
    similarity: j.similarity,
    threshold: j.threshold,
    matchedQuery: j.matched_query,
    missReason: j.miss_reason,
    costUsd: j.cost_usd,
    spentUsd: j.spent_usd,
    embedCostUsd: j.embed_cost_usd,
    lookupUs: j.lookup_us,
    exactLookupUs: j.exact_lookup_us,
    embedUs: j.embed_us,
    searchUs: j.search_us,
    tier2Consulted: j.tier2_consulted,
    ...(j.steps ? { steps: j.steps.map((s) => ({ key: s.key, type: s.type, repeat: s.repeat, served: s.served, correct: s.correct, costUsd: s.cost_usd })) } : {}),
  };
}
