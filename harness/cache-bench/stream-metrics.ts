// Per-tier figures of one stream run: hit rate, false-hit rate and precision with Wilson 95% intervals,
// net savings after a wrong-hit penalty, lookup latency, and the must-miss classes that were served.
import { Decimal } from 'decimal.js';
import { wilson } from '../../runtime/cache/wilson.ts';
import type { Figures as StreamFiguresReport, Rate, Tier } from '../../schemas/types/cache-stream-report.ts';

/** One Tier 3 step of a document query. */
export interface StepRecord {
  key: string;
  type: string;
  /** The same step (key) came earlier in the stream, so a hit could be right. */
  repeat: boolean;
  served: boolean;
  /** Served and equal to what computing it now gives (null when computed). */
  correct: boolean | null;
  /** What computing the step costs, USD. */
  costUsd: string;
}

/** What happened to one query of the stream. */
export interface QueryRecord {
  id: string;
  class: string;
  /** The class had been asked before, so a hit could be right. */
  repeat: boolean;
  /** Declared `expect: miss`: no tier may serve it. */
  expectMiss: boolean;
  servedBy: 'exact' | 'semantic' | 'intermediate' | null;
  /** Served and the served answer is the class's reference answer (and no expect-miss). */
  correct: boolean | null;
  explored: boolean;
  similarity: number | null;
  /** The similarity the deciding candidate had to reach to be served (null when none was weighed or none is certified). */
  threshold: number | null;
  /** The cached query that served it, or the nearest candidate the tuner weighed. */
  matchedQuery: string | null;
  missReason: string | null;
  /** What computing this query costs (the cache-off arm), USD. */
  costUsd: string;
  /** What this query cost with the cache on, USD: its provider calls plus its lookup's embedding (0 on a hit with a local embedder). */
  spentUsd: string;
  /** The part of `spentUsd` that embedding its query for Tier 2 cost (absent or '0' with a local embedder). */
  embedCostUsd?: string;
  lookupUs: number;
  exactLookupUs: number;
  embedUs: number;
  searchUs: number;
  tier2Consulted: boolean;
  /** Tier 3's steps, when the query carried documents and went through it. */
  steps?: StepRecord[];
}

// The figure types are the report schema's (schemas/cache-stream-report.schema.json), so they cannot drift from it.
export type { Rate } from '../../schemas/types/cache-stream-report.ts';
/** One tier's figures; `hit_rate_on_repeats` is correct hits ÷ repeat queries, `lookup_us_*` exclude embedding for tier 2. */
export type TierFigures = Tier;

export interface StreamFigures {
  queries: number;
  repeats: number;
  cost_off_usd: string;
  cost_on_usd: string;
  /** What embedding queries for Tier 2 cost (part of cost_on_usd); '0' with a local embedder. */
  embed_cost_usd: string;
  wrong_hit_penalty: number;
  tiers: TierFigures[];
  /** The must-miss queries (no cached answer could serve them rightly): the denominator of each tier's `false_hit_rate_must_miss`. */
  must_miss: StreamFiguresReport['must_miss'];
  /** Classes of hits on novel or expect-miss queries (each a wrong hit), and of queries served a wrong Tier 3 step. */
  must_miss_classes_hit: string[];
  embed_us_p50: number | null;
  embed_us_p95: number | null;
  /** Overhead of the queries no tier served (embedding included). */
  all_miss_overhead_us_p50: number | null;
  all_miss_overhead_us_p95: number | null;
  explored: number;
  /** Tier 3's economics, when the stream has document queries. */
  tier3?: Tier3Figures;
}

/** What the document queries cost three ways: one call each, the workflow uncached, the workflow with Tier 3. */
export type Tier3Figures = NonNullable<StreamFiguresReport['tier3']>;

/** The nearest-rank percentile of `xs` (p in [0, 100]); null for an empty list. */
export function percentile(xs: readonly number[], p: number): number | null {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

function rate(k: number, n: number): Rate {
  return { k, n, ci: wilson(k, n) };
}

function round(x: number | null): number | null {
  return x === null ? null : Math.round(x * 10) / 10;
}

/** A query no cached answer could serve rightly: declared `expect: miss`, or the first ask of its class. */
export function isMustMiss(r: Pick<QueryRecord, 'repeat' | 'expectMiss'>): boolean {
  return r.expectMiss || !r.repeat;
}

/** Folds the records into per-tier figures. `penalty` multiplies a wrong hit's query cost. */
export function streamFigures(records: readonly QueryRecord[], penalty = 10): StreamFigures {
  if (!(penalty >= 0)) throw new RangeError(`wrong-hit penalty must be >= 0, got ${penalty}`);
  const costOff = records.reduce((s, r) => s.plus(r.costUsd), new Decimal(0));
  const costOn = records.reduce((s, r) => s.plus(r.spentUsd), new Decimal(0));
  // Only Tier 2 embeds, so its net savings and those of all tiers together pay for every lookup's embedding, hit or miss.
  const embedCost = records.reduce((s, r) => s.plus(r.embedCostUsd ?? 0), new Decimal(0));
  const repeats = records.filter((r) => r.repeat && !r.expectMiss).length;
  const mustMiss = records.filter(isMustMiss);
  const tier = (name: TierFigures['tier']): TierFigures => {
    const served = records.filter((r) => r.servedBy !== null && (name === 'all' || r.servedBy === name));
    const wrong = served.filter((r) => !r.correct);
    // For all tiers together the saving is what the run did not spend on the provider: a document query Tier 3
    // served in part saves its held steps but pays for decomposing (equal to the served cost on streams without one).
    const avoided = name === 'all' ? costOff.minus(costOn.minus(embedCost)) : served.reduce((s, r) => s.plus(r.costUsd), new Decimal(0));
    const pen = wrong.reduce((s, r) => s.plus(new Decimal(r.costUsd).times(penalty)), new Decimal(0));
    const net = avoided.minus(pen).minus(name === 'all' || name === 'semantic' ? embedCost : 0);
    const lat =
      name === 'exact' ? records.map((r) => r.exactLookupUs) : name === 'semantic' ? records.filter((r) => r.tier2Consulted).map((r) => r.searchUs) : records.map((r) => r.lookupUs);
    return {
      tier: name,
      queries: records.length,
      hits: served.length,
      wrong_hits: wrong.length,
      hit_rate: rate(served.length, records.length),
      hit_rate_on_repeats: rate(served.length - wrong.length, repeats),
      false_hit_rate: rate(wrong.length, records.length),
      false_hit_rate_must_miss: rate(wrong.filter(isMustMiss).length, mustMiss.length),
      precision: rate(served.length - wrong.length, served.length),
      avoided_usd: avoided.toFixed(),
      penalty_usd: pen.toFixed(),
      net_savings_usd: net.toFixed(),
      net_savings_pct: costOff.isZero() ? null : net.div(costOff).times(100).toNumber(),
      lookup_us_p50: round(percentile(lat, 50)),
      lookup_us_p95: round(percentile(lat, 95)),
    };
  };
  // Tier 3 counts steps, not queries: a query it served in part saves the steps it served.
  const docs = records.filter((r) => r.steps);
  const steps = docs.flatMap((r) => r.steps!);
  const workflowCost = steps.reduce((s, x) => s.plus(x.costUsd), new Decimal(0));
  // Its savings are a share of what the steps would cost uncached, not of one call per query.
  const intermediate = (): TierFigures => {
    const served = steps.filter((s) => s.served);
    const wrong = served.filter((s) => !s.correct);
    const avoided = served.reduce((s, x) => s.plus(x.costUsd), new Decimal(0));
    const pen = wrong.reduce((s, x) => s.plus(new Decimal(x.costUsd).times(penalty)), new Decimal(0));
    const net = avoided.minus(pen);
    const lat = records.filter((r) => r.steps).map((r) => r.lookupUs - r.exactLookupUs);
    return {
      tier: 'intermediate',
      queries: steps.length,
      hits: served.length,
      wrong_hits: wrong.length,
      hit_rate: rate(served.length, steps.length),
      hit_rate_on_repeats: rate(served.length - wrong.length, steps.filter((s) => s.repeat).length),
      false_hit_rate: rate(wrong.length, steps.length),
      // A step not computed before: any hit on it is wrong.
      false_hit_rate_must_miss: rate(wrong.filter((x) => !x.repeat).length, steps.filter((x) => !x.repeat).length),
      precision: rate(served.length - wrong.length, served.length),
      avoided_usd: avoided.toFixed(),
      penalty_usd: pen.toFixed(),
      net_savings_usd: net.toFixed(),
      net_savings_pct: workflowCost.isZero() ? null : net.div(workflowCost).times(100).toNumber(),
      lookup_us_p50: round(percentile(lat, 50)),
      lookup_us_p95: round(percentile(lat, 95)),
    };
  };
  const hasSteps = docs.length > 0;
  const sum = (xs: readonly QueryRecord[], f: (r: QueryRecord) => string) => xs.reduce((s, r) => s.plus(f(r)), new Decimal(0)).toFixed();
  const misses = records.filter((r) => r.servedBy === null);
  const embeds = records.filter((r) => r.tier2Consulted).map((r) => r.embedUs);
  return {
    queries: records.length,
    repeats,
    cost_off_usd: costOff.toFixed(),
    cost_on_usd: costOn.toFixed(),
    embed_cost_usd: embedCost.toFixed(),
    wrong_hit_penalty: penalty,
    tiers: [tier('exact'), tier('semantic'), ...(hasSteps ? [intermediate()] : []), tier('all')],
    must_miss: { queries: mustMiss.length, declared: mustMiss.filter((r) => r.expectMiss).length, novel: mustMiss.filter((r) => !r.expectMiss).length },
    must_miss_classes_hit: [
      ...new Set(records.filter((r) => (r.servedBy !== null && (!r.repeat || r.expectMiss)) || r.steps?.some((s) => s.served && !s.correct)).map((r) => r.class)),
    ].sort(),
    embed_us_p50: round(percentile(embeds, 50)),
    embed_us_p95: round(percentile(embeds, 95)),
    all_miss_overhead_us_p50: round(percentile(misses.map((r) => r.lookupUs), 50)),
    all_miss_overhead_us_p95: round(percentile(misses.map((r) => r.lookupUs), 95)),
    explored: records.filter((r) => r.explored).length,
    ...(hasSteps
      ? {
          tier3: {
            queries: docs.length,
            steps: steps.length,
            steps_served: steps.filter((x) => x.served).length,
            one_call_cost_usd: sum(docs, (r) => r.costUsd),
            workflow_uncached_cost_usd: workflowCost.toFixed(),
            workflow_cached_cost_usd: sum(docs, (r) => r.spentUsd),
          },
        }
      : {}),
  };
}
