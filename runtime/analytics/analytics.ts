import type Database from 'better-sqlite3';
import { Decimal } from 'decimal.js';
import type { PriceTable } from '../pricing/rates.ts';
import { POLICY_NAMES, type PolicyName, type RouteDecidedPayload } from '../routing/route-decision.ts';
import { computeSavings, type SavingsResult, type TokenGroup } from './savings.ts';
import { selectorFilter, type EventSelector, type SqlFilter } from './selector.ts';
import { addUsage, ZERO_USAGE, type Usage } from '../types/response.ts';
import { ensureAnalyticsIndexes, LLM_USAGE_INDEX, USAGE_EXPR } from './indexes.ts';

/** Above this many selected llm rows, reading the usage index beats reading the rows. */
const LARGE_SELECTION_ROWS = 20_000;

/** Routing decisions over a selection (harness-and-runtime.md §6 `routing()`). */
export interface RoutingSummary {
  decisions_total: number;
  /** Decisions won by each slot; every slot present, 0 when it never won. */
  by_policy: Record<PolicyName, number>;
  /** Decisions per chosen model. */
  by_model: Record<string, number>;
  /** `llm.call_failed` rows: calls that failed after the adapter's retries. */
  hard_failures: number;
}

/** Prompt-cache effectiveness over `llm.call_completed` rows; ratios are null when there were no input tokens. */
export interface CacheEffectiveness {
  /** cached / (input + cached + cache_creation). */
  hit_rate: number | null;
  /** cache_creation / (input + cached + cache_creation). */
  cache_write_share: number | null;
  input_tokens: number;
  cached_input_tokens: number;
  cache_creation_input_tokens: number;
}

/**
 * The semantic cache (runtime/cache) over a selection, from its cache.* events and the llm.call_completed
 * rows it served (cache_tier set). All zero when the cache was off.
 */
export interface SemanticCacheSummary {
  /** `llm.call_completed` rows: model calls plus calls a cache tier answered. */
  llm_calls: number;
  /** Rows a cache tier answered (no model called). */
  served_calls: number;
  /** `cache.hit` events per tier. */
  hits: { exact: number; semantic: number; intermediate: number };
  /** `cache.miss` events, and those of them that recomputed a would-be hit to learn (explored). */
  misses: number;
  explored: number;
  sets: number;
  evictions: number;
  /** Sum of cache.hit's avoided_cost_usd: what the served answers cost when they were computed. */
  avoided_cost_usd: Decimal;
  /** Sum of cache.hit's served_cost_usd (0 with a local embedder). */
  served_cost_usd: Decimal;
}

/** Event counts for the report's turns / llm / tool columns. */
export interface UsageCounts {
  /** `turn.started` rows. */
  turns: number;
  /** `llm.call_completed` rows. */
  llm_calls: number;
  /** `llm.call_failed` rows. */
  llm_calls_failed: number;
  /** `tool.called` rows. */
  tool_calls: number;
  /**
   * `tool.failed` rows: the tool could not do its job. A shell command that ran and exited non-zero
   * (`tool.completed` with `success: false`) is information for the model, not a broken tool.
   */
  tool_calls_failed: number;
  /** `tool.input_invalid` rows (never dispatched, so not in tool_calls). */
  tool_inputs_invalid: number;
}

/** One `route.decided` event: which turn, and the decision with its whole chain. */
export interface RouteDecisionRow {
  session_id: string;
  turn_id: string | null;
  decision: RouteDecidedPayload;
}

/** Analytics over one trace DB; read-only, every number recomputable from the DB alone. */
export interface Analytics {
  /** Every routing decision of the selection, in event order (for slot-4 metrics and the report's routed turns). */
  routeDecisions(selector: EventSelector): RouteDecisionRow[];
  savings(selector: EventSelector, baselineModel: string): SavingsResult;
  routing(selector: EventSelector): RoutingSummary;
  cacheEffectiveness(selector: EventSelector): CacheEffectiveness;
  usageCounts(selector: EventSelector): UsageCounts;
  semanticCache(selector: EventSelector): SemanticCacheSummary;
}

type Row = Record<string, number | bigint | string | null>;

/** SQLite sums are 64-bit; refuse (rather than round) a sum a JS number cannot hold exactly. */
function int(v: number | bigint | string | null | undefined): number {
  if (v === null || v === undefined) return 0;
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new RangeError(`token sum ${String(v)} exceeds exact integer range`);
  return n;
}

/** Creates the analytics queries over a trace DB holding the catalog §7.1 `events` table. */
export function createAnalytics(db: Database.Database, table: PriceTable): Analytics {
  if (!db.readonly) ensureAnalyticsIndexes(db);
  const statements = new Map<string, Database.Statement>();
  const all = (sql: string, params: unknown[]): Row[] => {
    let st = statements.get(sql);
    if (!st) {
      st = db.prepare(sql).safeIntegers(true);
      statements.set(sql, st);
    }
    return st.all(...params) as Row[];
  };

  const hasUsageIndex = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?").get(LLM_USAGE_INDEX) !== undefined;
  /**
   * Without planner statistics SQLite reads a large window through (type, timestamp_us) and parses every
   * payload (~2 s per 1M rows); the usage index answers it in ~0.1 s. A cheap covering count decides.
   */
  const indexHint = (selector: EventSelector, f: SqlFilter): string => {
    if (!hasUsageIndex || 'sessions' in selector) return '';
    const n = int(all(`SELECT COUNT(*) AS n FROM events WHERE ${f.sql}`, f.params)[0]?.n);
    return n > LARGE_SELECTION_ROWS ? ` INDEXED BY ${LLM_USAGE_INDEX}` : '';
  };

  const tokenGroups = (selector: EventSelector): TokenGroup[] => {
    const f = selectorFilter(selector, ['llm.call_completed']);
    // Grouped in SQL so a million rows become a handful; exact because cost is linear in tokens.
    // The expressions match LLM_USAGE_INDEX_DDL's, so SQLite reads them from the index, not the JSON.
    const rows = all(
      `SELECT ${USAGE_EXPR.model} AS model, COUNT(*) AS rows,
              SUM(${USAGE_EXPR.input_tokens}) AS input_tokens,
              SUM(${USAGE_EXPR.output_tokens}) AS output_tokens,
              SUM(${USAGE_EXPR.cached_input_tokens}) AS cached_input_tokens,
              SUM(${USAGE_EXPR.cache_creation_input_tokens}) AS cache_creation_input_tokens
         FROM events${indexHint(selector, f)} WHERE ${f.sql} GROUP BY 1`,
      f.params,
    );
    return rows.map((r) => ({
      model: typeof r.model === 'string' ? r.model : null,
      rows: int(r.rows),
      input_tokens: int(r.input_tokens),
      output_tokens: int(r.output_tokens),
      cached_input_tokens: int(r.cached_input_tokens),
      cache_creation_input_tokens: int(r.cache_creation_input_tokens),
    }));
  };

  /**
   * The recorded cost of the rows a cache tier served (zero tokens, so re-pricing alone would say $0).
   * Only zero-token rows can be served, and the usage index says which those are without parsing JSON.
   * Summed in Decimal; served rows are few.
   */
  const servedCost = (selector: EventSelector): Decimal => {
    const f = selectorFilter(selector, ['llm.call_completed']);
    const rows = all(
      `SELECT payload_json ->> '$.cost_usd' AS cost FROM events${indexHint(selector, f)}
        WHERE ${f.sql} AND ${USAGE_EXPR.input_tokens} = 0 AND ${USAGE_EXPR.output_tokens} = 0 AND payload_json ->> '$.cache_tier' IS NOT NULL`,
      f.params,
    );
    return rows.reduce((s, r) => s.plus(typeof r.cost === 'string' && r.cost ? r.cost : 0), new Decimal(0));
  };

  const countByType = (selector: EventSelector, types: readonly string[]): Map<string, number> => {
    const f = selectorFilter(selector, types);
    const rows = all(`SELECT type, COUNT(*) AS n FROM events WHERE ${f.sql} GROUP BY type`, f.params);
    return new Map(rows.map((r) => [String(r.type), int(r.n)]));
  };

  return {
    routeDecisions(selector) {
      const f = selectorFilter(selector, ['route.decided']);
      return all(`SELECT session_id, turn_id, payload_json FROM events WHERE ${f.sql} ORDER BY id`, f.params).map((r) => ({
        session_id: String(r.session_id),
        turn_id: r.turn_id === null ? null : String(r.turn_id),
        decision: JSON.parse(String(r.payload_json)) as RouteDecidedPayload,
      }));
    },

    savings(selector, baselineModel) {
      return computeSavings(tokenGroups(selector), baselineModel, table, servedCost(selector));
    },

    routing(selector) {
      const f = selectorFilter(selector, ['route.decided']);
      const rows = all(
        `SELECT payload_json ->> ('$.chain[' || (payload_json ->> '$.winner_index') || '].policy') AS policy,
                payload_json ->> '$.chosen_model' AS model, COUNT(*) AS n
           FROM events WHERE ${f.sql} GROUP BY 1, 2`,
        f.params,
      );
      const byPolicy = Object.fromEntries(POLICY_NAMES.map((p) => [p, 0])) as Record<PolicyName, number>;
      const byModel: Record<string, number> = {};
      let total = 0;
      for (const r of rows) {
        const n = int(r.n);
        total += n;
        if (typeof r.policy === 'string' && r.policy in byPolicy) byPolicy[r.policy as PolicyName] += n;
        const model = String(r.model);
        byModel[model] = (byModel[model] ?? 0) + n;
      }
      const failed = countByType(selector, ['llm.call_failed']).get('llm.call_failed') ?? 0;
      return { decisions_total: total, by_policy: byPolicy, by_model: byModel, hard_failures: failed };
    },

    cacheEffectiveness(selector) {
      const sum = tokenGroups(selector).reduce<Usage>(addUsage, ZERO_USAGE);
      const input = sum.input_tokens;
      const cached = sum.cached_input_tokens;
      const creation = sum.cache_creation_input_tokens;
      const denominator = input + cached + creation;
      return {
        hit_rate: denominator === 0 ? null : cached / denominator,
        cache_write_share: denominator === 0 ? null : creation / denominator,
        input_tokens: input,
        cached_input_tokens: cached,
        cache_creation_input_tokens: creation,
      };
    },

    semanticCache(selector) {
      const c = countByType(selector, ['llm.call_completed', 'cache.miss', 'cache.set', 'cache.evicted']);
      const n = (t: string) => c.get(t) ?? 0;
      const where = (type: string, cond: string) => {
        const f = selectorFilter(selector, [type]);
        return int(all(`SELECT COUNT(*) AS n FROM events WHERE ${f.sql} AND ${cond}`, f.params)[0]?.n);
      };
      const served = where('llm.call_completed', "payload_json ->> '$.cache_tier' IS NOT NULL");
      const explored = where('cache.miss', "payload_json ->> '$.explored' = 1");
      const hits = { exact: 0, semantic: 0, intermediate: 0 };
      let avoided = new Decimal(0);
      let servedCost = new Decimal(0);
      // Money is summed exactly in Decimal, not in SQL floats; hits are few.
      const f = selectorFilter(selector, ['cache.hit']);
      for (const r of all(`SELECT payload_json FROM events WHERE ${f.sql}`, f.params)) {
        const p = JSON.parse(String(r.payload_json)) as { tier: keyof typeof hits; avoided_cost_usd: string; served_cost_usd: string };
        hits[p.tier] += 1;
        avoided = avoided.plus(p.avoided_cost_usd);
        servedCost = servedCost.plus(p.served_cost_usd);
      }
      return {
        llm_calls: n('llm.call_completed'),
        served_calls: served,
        hits,
        misses: n('cache.miss'),
        explored,
        sets: n('cache.set'),
        evictions: n('cache.evicted'),
        avoided_cost_usd: avoided,
        served_cost_usd: servedCost,
      };
    },

    usageCounts(selector) {
      const types = ['turn.started', 'llm.call_completed', 'llm.call_failed', 'tool.called', 'tool.failed', 'tool.input_invalid'];
      const c = countByType(selector, types);
      const n = (t: string) => c.get(t) ?? 0;
      return {
        turns: n('turn.started'),
        llm_calls: n('llm.call_completed'),
        llm_calls_failed: n('llm.call_failed'),
        tool_calls: n('tool.called'),
        tool_calls_failed: n('tool.failed'),
        tool_inputs_invalid: n('tool.input_invalid'),
      };
    },
  };
}
