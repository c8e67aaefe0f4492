import type Database from 'better-sqlite3';
import { Decimal } from 'decimal.js';
import type { PriceTable } from '../pricing/rates.ts';
import { POLICY_NAMES, type PolicyName, type RouteDecidedPayload } from '../routing/route-decision.ts';
import { addScaledSavings, computeSavings, NO_SCALED_SAVINGS, savingsFromScaled, savingsText, savingsTextFromScaled, scaledSavingsOf, tableExponent, type SavingsResult, type SavingsText, type ScaledSavings, type TokenGroup } from './savings.ts';
import { selectorFilter, type EventSelector, type SqlFilter } from './selector.ts';
import { addUsage, ZERO_USAGE, type Usage } from '../types/response.ts';
import { ensureAnalyticsIndexes, LLM_USAGE_INDEX, USAGE_EXPR } from './indexes.ts';
import { readsOnly } from '../core/sqlite-reader.ts';
import { bySession, createSessionMemo } from './session-memo.ts';
import { COUNTED_TYPES, USAGE_TYPES, type EventRow, type PreReadEvents } from './event-rows.ts';
import { decisionRowsOf, policyModelsOf, semanticRowsOf, servedCostsOf, sqlKeyOrder, typeCountsOf, usageRowsOf, type PolicyModel, type SemanticRows } from './session-row-figures.ts';

/** The event types semanticCache reads. */
const SEMANTIC_TYPES = ['llm.call_completed', 'cache.miss', 'cache.hit'];

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

/** One `route.decided` event's outcome without its chain: the winning slot's policy and the chosen model. */
export interface RouteChoiceRow {
  session_id: string;
  turn_id: string | null;
  /** `chain[winner_index].policy`; null when there is no such entry. */
  policy: string | null;
  chosen_model: string;
}

/** Analytics over one trace DB; read-only, every number recomputable from the DB alone. */
export interface Analytics {
  /** Every routing decision of the selection, in event order (for slot-4 metrics and the report's routed turns). */
  routeDecisions(selector: EventSelector): RouteDecisionRow[];
  /**
   * routeDecisions' rows as the winning policy and chosen model alone, read without parsing the decisions
   * (a report asks this of every forced and random-arm turn: call shares, turns a slot other than manual won).
   */
  routeChoices(selector: EventSelector): RouteChoiceRow[];
  savings(selector: EventSelector, baselineModel: string): SavingsResult;
  /**
   * savings' figures with each Decimal as its text (what a report writes), made from the exact sums without a
   * Decimal where savings takes them from there too (a report writes one per rep).
   */
  savingsText(selector: EventSelector, baselineModel: string): SavingsText;
  routing(selector: EventSelector): RoutingSummary;
  cacheEffectiveness(selector: EventSelector): CacheEffectiveness;
  usageCounts(selector: EventSelector): UsageCounts;
  semanticCache(selector: EventSelector): SemanticCacheSummary;
  /**
   * Reads the usage, served-cost and report-count rows of `sessions` into the per-session memo in one query
   * each, so the per-rep selections that follow read no rows (a report asks once per rep: 183 queries of each
   * kind on a nightly run). Nothing happens without the memo, where each selection reads its own rows.
   */
  prefetch(sessions: readonly string[]): void;
}

type Row = Record<string, number | bigint | string | null>;

/** SQLite sums are 64-bit; refuse (rather than round) a sum a JS number cannot hold exactly. */
function int(v: number | bigint | string | null | undefined): number {
  if (v === null || v === undefined) return 0;
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new RangeError(`token sum ${String(v)} exceeds exact integer range`);
  return n;
}

/** Options of `createAnalytics`. */
export interface AnalyticsOptions {
  /**
   * Keep each session's rows once read, for selections by session (default: when the DB is opened read-only).
   * Only for a DB nobody writes meanwhile: a kept session would not see rows added later.
   */
  sessionMemo?: boolean;
  /**
   * Rows already read (a run's: analyze reads them to check their values): with the memo, a figure of these
   * sessions whose event types were all read is summed from them instead of read again.
   */
  events?: PreReadEvents;
}

/** Per-model sums of several sessions' groups, in SQLite's GROUP BY order (no model first, then by name). */
function mergeGroups(perSession: readonly (readonly TokenGroup[])[]): TokenGroup[] {
  const byModel = new Map<string | null, TokenGroup>();
  for (const groups of perSession)
    for (const g of groups) {
      const m = byModel.get(g.model);
      // Each field by name: a key list walked per group was a dynamic (slow, cold) property access per field.
      if (!m)
        byModel.set(g.model, {
          model: g.model,
          rows: g.rows,
          input_tokens: g.input_tokens,
          output_tokens: g.output_tokens,
          cached_input_tokens: g.cached_input_tokens,
          cache_creation_input_tokens: g.cache_creation_input_tokens,
        });
      else {
        m.rows = int(m.rows + g.rows);
        m.input_tokens = int(m.input_tokens + g.input_tokens);
        m.output_tokens = int(m.output_tokens + g.output_tokens);
        m.cached_input_tokens = int(m.cached_input_tokens + g.cached_input_tokens);
        m.cache_creation_input_tokens = int(m.cache_creation_input_tokens + g.cache_creation_input_tokens);
      }
    }
  return [...byModel.values()].sort((a, b) => (a.model === b.model ? 0 : a.model === null ? -1 : b.model === null ? 1 : a.model < b.model ? -1 : 1));
}

/** Creates the analytics queries over a trace DB holding the catalog §7.1 `events` table. */
export function createAnalytics(db: Database.Database, table: PriceTable, options: AnalyticsOptions = {}): Analytics {
  const reader = readsOnly(db);
  if (!reader) ensureAnalyticsIndexes(db);
  const memo = options.sessionMemo ?? reader;
  const events = memo ? options.events : undefined;
  /** True when the pre-read rows hold every row of these types (null: of every type). */
  const readTypes = (types: readonly string[] | null): boolean => events !== undefined && (events.types === null || (types !== null && types.every((t) => events.types!.has(t))));
  const rowsOf = (session: string): readonly EventRow[] => events?.rows.get(session) ?? [];
  /**
   * A per-session reader that sums the pre-read rows of the sessions they hold, when they hold the `types` the
   * figure reads, and asks the DB for the rest.
   */
  const fromRows =
    <T>(types: readonly string[] | null, fromDb: (ids: string[]) => Map<string, T>, ofRows: (rows: readonly EventRow[]) => T) =>
    (ids: string[]): Map<string, T> => {
      if (!events || !readTypes(types)) return fromDb(ids);
      const out = new Map<string, T>();
      const rest: string[] = [];
      for (const id of ids) {
        if (events.sessions.has(id)) out.set(id, ofRows(rowsOf(id)));
        else rest.push(id);
      }
      if (rest.length > 0) for (const [id, v] of fromDb(rest)) out.set(id, v);
      return out;
    };
  /** True when the pre-read rows answer the whole selection for `types` (then its non-memo queries are answered from them too). */
  const heldRows = (selector: EventSelector, types: readonly string[]): selector is { sessions: readonly string[] } =>
    events !== undefined && 'sessions' in selector && readTypes(types) && selector.sessions.every((s) => events.sessions.has(s));
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

  const usageSql = (head: string, f: SqlFilter, hint: string, group: string) =>
    `SELECT ${head}${USAGE_EXPR.model} AS model, COUNT(*) AS rows,
              SUM(${USAGE_EXPR.input_tokens}) AS input_tokens,
              SUM(${USAGE_EXPR.output_tokens}) AS output_tokens,
              SUM(${USAGE_EXPR.cached_input_tokens}) AS cached_input_tokens,
              SUM(${USAGE_EXPR.cache_creation_input_tokens}) AS cache_creation_input_tokens
         FROM events${hint} WHERE ${f.sql} GROUP BY ${group}`;
  const toGroup = (r: Row): TokenGroup => ({
    model: typeof r.model === 'string' ? r.model : null,
    rows: int(r.rows),
    input_tokens: int(r.input_tokens),
    output_tokens: int(r.output_tokens),
    cached_input_tokens: int(r.cached_input_tokens),
    cache_creation_input_tokens: int(r.cache_creation_input_tokens),
  });
  /** A per-session memo of one type's rows: from the pre-read rows when they hold that type, else one query over the sessions. */
  const rowsMemo = (type: string, sqlOf: (f: SqlFilter) => string, ofRows: (rows: readonly EventRow[]) => Row[]) =>
    createSessionMemo(
      fromRows(
        [type],
        (ids) => {
          const f = selectorFilter({ sessions: ids }, [type]);
          return bySession(all(sqlOf(f), f.params));
        },
        ofRows,
      ),
      (): Row[] => [],
    );

  const sessionGroups = createSessionMemo(
    fromRows(
      ['llm.call_completed'],
      (ids) => {
        const f = selectorFilter({ sessions: ids }, ['llm.call_completed']);
        return new Map([...bySession(all(usageSql('session_id, ', f, '', '1, 2'), f.params))].map(([id, rows]) => [id, rows.map(toGroup)]));
      },
      (rows) => usageRowsOf(rows).map((r) => toGroup(r as unknown as Row)),
    ),
    (): TokenGroup[] => [],
  );
  const tokenGroups = (selector: EventSelector): TokenGroup[] => {
    if (memo && 'sessions' in selector) return mergeGroups(sessionGroups(selector.sessions));
    const f = selectorFilter(selector, ['llm.call_completed']);
    // Grouped in SQL so a million rows become a handful; exact because cost is linear in tokens.
    // The expressions match LLM_USAGE_INDEX_DDL's, so SQLite reads them from the index, not the JSON.
    return all(usageSql('', f, indexHint(selector, f), '1'), f.params).map(toGroup);
  };

  /**
   * The recorded cost of the rows a cache tier served (zero tokens, so re-pricing alone would say $0).
   * Only zero-token rows can be served, and the usage index says which those are without parsing JSON.
   * Summed in Decimal; served rows are few.
   */
  const servedSql = (head: string, f: SqlFilter, hint: string) =>
    `SELECT ${head}payload_json ->> '$.cost_usd' AS cost FROM events${hint}
        WHERE ${f.sql} AND ${USAGE_EXPR.input_tokens} = 0 AND ${USAGE_EXPR.output_tokens} = 0 AND payload_json ->> '$.cache_tier' IS NOT NULL`;
  const sessionServed = rowsMemo('llm.call_completed', (f) => servedSql('session_id, ', f, ''), servedCostsOf);
  const servedCost = (selector: EventSelector): Decimal => {
    const f = selectorFilter(selector, ['llm.call_completed']);
    const rows = memo && 'sessions' in selector ? sessionServed(selector.sessions).flat() : all(servedSql('', f, indexHint(selector, f)), f.params);
    return rows.reduce((s, r) => s.plus(typeof r.cost === 'string' && r.cost ? r.cost : 0), new Decimal(0));
  };

  /**
   * Each session's event count per COUNTED_TYPES type, every type at once: a report asks for three lists of
   * types, and one read of the sessions' rows answers them all (a list each read every row three times). Counts
   * the reader made on its way (the events pass) answer the sessions they cover; else types the pre-read rows
   * hold are counted from them, and SQL counts only the rest, not every type of every row.
   */
  const sessionTypeCounts = createSessionMemo(
    (ids: string[]): Map<string, Map<string, number>> => {
      const out = new Map<string, Map<string, number>>();
      const counted = events?.counts;
      const held = events ? ids.filter((id) => events.sessions.has(id)) : [];
      if (counted !== undefined) {
        for (const id of held) {
          const c = counted.get(id);
          if (c !== undefined) out.set(id, new Map(c));
        }
      }
      const heldTypes = held.length === 0 ? [] : counted !== undefined ? COUNTED_TYPES : COUNTED_TYPES.filter((t) => readTypes([t]));
      const add = (id: string, type: string, n: number) => {
        let m = out.get(id);
        if (!m) out.set(id, (m = new Map()));
        m.set(type, (m.get(type) ?? 0) + n);
      };
      if (counted === undefined) for (const id of held) for (const [type, n] of typeCountsOf(rowsOf(id))) if (heldTypes.includes(type)) add(id, type, n);
      const inList = (types: readonly string[]) => types.map((t) => `'${t}'`).join(', ');
      const query = (sessions: readonly string[], types: readonly string[]) => {
        if (sessions.length === 0 || types.length === 0) return;
        // `+type` keeps SQLite on the session index: the (type, timestamp) one would walk every run's rows of these types.
        const rows = all(`SELECT session_id, type, COUNT(*) AS n FROM events WHERE session_id IN (SELECT value FROM json_each(?)) AND +type IN (${inList(types)}) GROUP BY 1, 2`, [JSON.stringify(sessions)]);
        for (const r of rows) add(String(r.session_id), String(r.type), int(r.n));
      };
      const heldSet = new Set(held);
      query(ids.filter((id) => !heldSet.has(id)), COUNTED_TYPES);
      query(held, COUNTED_TYPES.filter((t) => !heldTypes.includes(t)));
      return out;
    },
    () => new Map<string, number>(),
  );
  /** The selection's event count per type of `types` (types without rows absent), for reading by type. */
  const countByType = (selector: EventSelector, types: readonly string[]): Map<string, number> => {
    if (memo && 'sessions' in selector && types.every((t) => COUNTED_TYPES.includes(t))) {
      const total = new Map<string, number>();
      for (const c of sessionTypeCounts(selector.sessions))
        for (const t of types) {
          const n = c.get(t);
          if (n !== undefined) total.set(t, (total.get(t) ?? 0) + n);
        }
      // Read by type only (`get`), so in no particular order: sorting them was a copy and a sort per rep.
      return total;
    }
    const f = selectorFilter(selector, types);
    const rows = all(`SELECT type, COUNT(*) AS n FROM events WHERE ${f.sql} GROUP BY type`, f.params);
    return new Map(rows.map((r) => [String(r.type), int(r.n)]));
  };

  const sessionDecisions = rowsMemo('route.decided', (f) => `SELECT id, session_id, turn_id, payload_json FROM events WHERE ${f.sql}`, decisionRowsOf);
  /** The payloads of the rows of these rowids (pre-read decisions, named without them), by rowid. */
  const decisionPayloads = (rowids: readonly number[]): Map<number, string> =>
    new Map(all('SELECT rowid, payload_json FROM events WHERE rowid IN (SELECT value FROM json_each(?))', [JSON.stringify(rowids)]).map((r) => [Number(r.rowid), String(r.payload_json)]));
  /** The routing query's winning-policy and chosen-model expressions (what the pre-read rows hold). */
  const choiceSql = (head: string, f: SqlFilter, order: string) =>
    `SELECT ${head}session_id, turn_id, payload_json ->> ('$.chain[' || (payload_json ->> '$.winner_index') || '].policy') AS policy,
            payload_json ->> '$.chosen_model' AS chosen_model FROM events WHERE ${f.sql}${order}`;
  const sessionChoices = rowsMemo('route.decided', (f) => choiceSql('id, ', f, ''), (rows) =>
    rows.filter((r) => r.type === 'route.decided').map((r) => ({ id: r.id, session_id: r.session_id, turn_id: r.turn_id, policy: r.policy, chosen_model: r.chosen_model })),
  );

  // Answered from the pre-read rows only (heldRows), so they need no query of their own.
  const sessionPolicyModels = createSessionMemo((ids) => new Map(ids.map((id) => [id, policyModelsOf(rowsOf(id))])), (): PolicyModel[] => []);
  const sessionSemantic = createSessionMemo((ids) => new Map(ids.map((id) => [id, semanticRowsOf(rowsOf(id))])), (): SemanticRows => ({ served: 0, explored: 0, hits: [] }));

  /** The routing query's rows (GROUP BY policy, model, in SQLite's order) over the pre-read rows. */
  const policyModelCounts = (sessions: readonly string[]): Row[] => {
    type Count = { policy: string | number | null; model: string | number | null; n: number };
    // Keyed by the values themselves, policy then model (a Map tells 1 from '1' and null from 'null', as SQL does),
    // not by a JSON text made per decision.
    const counts = new Map<string | number | null, Map<string | number | null, Count>>();
    for (const list of sessionPolicyModels(sessions))
      for (const pm of list) {
        let byModel = counts.get(pm.policy);
        if (!byModel) counts.set(pm.policy, (byModel = new Map()));
        const c = byModel.get(pm.model);
        if (c) c.n += 1;
        else byModel.set(pm.model, { policy: pm.policy, model: pm.model, n: 1 });
      }
    return [...counts.values()].flatMap((m) => [...m.values()]).sort((a, b) => sqlKeyOrder(a.policy, b.policy) || sqlKeyOrder(a.model, b.model));
  };

  const savingsKept = new Map<string, SavingsResult>();

  // Each session priced once per baseline, as exact integer sums a selection adds up (a report prices every rep,
  // then each workload, pass and arm again: the same sessions' tokens, each priced anew through Decimals).
  let exponent: number | null | undefined;
  const sessionScaled = new Map<string, (sessions: readonly string[]) => (ScaledSavings | null)[]>();
  const scaledOf = (baselineModel: string, e: number) => {
    let m = sessionScaled.get(baselineModel);
    if (!m) {
      m = createSessionMemo(
        (ids) => {
          const groups = sessionGroups(ids);
          // A served row's recorded cost is Decimal text of any scale: a selection holding one takes computeSavings.
          const served = sessionServed(ids);
          return new Map(ids.map((id, i) => [id, served[i]!.length > 0 ? null : scaledSavingsOf(groups[i]!, baselineModel, table, e)]));
        },
        (): ScaledSavings | null => NO_SCALED_SAVINGS,
      );
      sessionScaled.set(baselineModel, m);
    }
    return m;
  };
  /** The sessions' exact sums added up, at the table's exponent; null where only computeSavings prices them (served rows, no exponent). */
  const exactSum = (sessions: readonly string[], baselineModel: string): { sum: ScaledSavings; e: number } | null => {
    exponent ??= tableExponent(table);
    if (exponent === null) return null;
    let sum = NO_SCALED_SAVINGS;
    for (const s of scaledOf(baselineModel, exponent)(sessions)) {
      if (s === null) return null;
      sum = addScaledSavings(sum, s);
    }
    return { sum, e: exponent };
  };
  /** computeSavings' answer for sessions summed from each session's exact sums; null where only computeSavings gives it (served rows, rounding). */
  const exactSavings = (sessions: readonly string[], baselineModel: string): SavingsResult | null => {
    const exact = exactSum(sessions, baselineModel);
    return exact && savingsFromScaled(exact.sum, exact.e, table.version, baselineModel);
  };

  const savings = (selector: EventSelector, baselineModel: string): SavingsResult => {
    if (!(memo && 'sessions' in selector)) return computeSavings(tokenGroups(selector), baselineModel, table, servedCost(selector));
    // A report asks some selections twice (a workload's reps for its row and for the oracle's arms): priced once.
    const sessions = selector.sessions;
    const key = `${baselineModel}\u0000${sessions.length === 1 ? sessions[0] : [...new Set(sessions)].sort().join('\u0000')}`;
    let kept = savingsKept.get(key);
    if (!kept) savingsKept.set(key, (kept = exactSavings(selector.sessions, baselineModel) ?? computeSavings(tokenGroups(selector), baselineModel, table, servedCost(selector))));
    // A copy: no caller shares (and could change) another's result object; its Decimals never change.
    return { ...kept };
  };

  /** A selector's rows in id order: from a session memo when the selector names sessions, else from `sql`. */
  const inIdOrder = (selector: EventSelector, bySession: (sessions: readonly string[]) => Row[][], sql: () => Row[]): Row[] =>
    memo && 'sessions' in selector
      ? bySession(selector.sessions)
          .flat()
          .sort((a, b) => (String(a.id) < String(b.id) ? -1 : 1))
      : sql();

  return {
    prefetch(sessions) {
      if (!memo) return;
      sessionGroups(sessions);
      sessionServed(sessions);
      sessionTypeCounts(sessions);
    },

    routeDecisions(selector) {
      // The filter is made only for SQL: a report asks per rep, and the memo answers those without it.
      const rows = inIdOrder(selector, sessionDecisions, () => {
        const f = selectorFilter(selector, ['route.decided']);
        return all(`SELECT session_id, turn_id, payload_json FROM events WHERE ${f.sql} ORDER BY id`, f.params);
      });
      // Pre-read rows name a decision by rowid without its payload: those are read here, in one query.
      const unread = rows.filter((r) => r.payload_json === null).map((r) => Number(r.rowid));
      const read = unread.length > 0 ? decisionPayloads(unread) : null;
      const payloadOf = (r: Row): string => {
        if (r.payload_json !== null) return String(r.payload_json);
        const text = read!.get(Number(r.rowid));
        // Only a reader outside the snapshot the rows came from (reportFromDb reads in one transaction) can miss one.
        if (text === undefined) throw new Error(`route.decided row ${String(r.rowid)} (${String(r.id)}) is no longer in the trace DB its rows were read from`);
        return text;
      };
      // Parsed per call, so no two callers share (and could change) one decision object.
      return rows.map((r) => ({
        session_id: String(r.session_id),
        turn_id: r.turn_id === null ? null : String(r.turn_id),
        decision: JSON.parse(payloadOf(r)) as RouteDecidedPayload,
      }));
    },

    routeChoices(selector) {
      const rows = inIdOrder(selector, sessionChoices, () => {
        const f = selectorFilter(selector, ['route.decided']);
        return all(choiceSql('', f, ' ORDER BY id'), f.params);
      });
      return rows.map((r) => ({
        session_id: String(r.session_id),
        turn_id: r.turn_id === null ? null : String(r.turn_id),
        policy: r.policy as string | null,
        chosen_model: r.chosen_model as string,
      }));
    },

    savings,

    savingsText(selector, baselineModel) {
      const exact = memo && 'sessions' in selector ? exactSum(selector.sessions, baselineModel) : null;
      return (exact && savingsTextFromScaled(exact.sum, exact.e, table.version, baselineModel)) ?? savingsText(savings(selector, baselineModel));
    },

    routing(selector) {
      const f = selectorFilter(selector, ['route.decided']);
      const rows = heldRows(selector, ['route.decided'])
        ? policyModelCounts(selector.sessions)
        : all(
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
      const held = heldRows(selector, SEMANTIC_TYPES) ? sessionSemantic(selector.sessions) : null;
      const where = (type: string, cond: string) => {
        const f = selectorFilter(selector, [type]);
        return int(all(`SELECT COUNT(*) AS n FROM events WHERE ${f.sql} AND ${cond}`, f.params)[0]?.n);
      };
      const served = held ? held.reduce((s, x) => s + x.served, 0) : where('llm.call_completed', "payload_json ->> '$.cache_tier' IS NOT NULL");
      const explored = held ? held.reduce((s, x) => s + x.explored, 0) : where('cache.miss', "payload_json ->> '$.explored' = 1");
      const hits = { exact: 0, semantic: 0, intermediate: 0 };
      let avoided = new Decimal(0);
      let servedCost = new Decimal(0);
      // Money is summed exactly in Decimal, not in SQL floats; hits are few.
      const f = selectorFilter(selector, ['cache.hit']);
      const hitPayloads = held ? held.flatMap((x) => x.hits) : all(`SELECT payload_json FROM events WHERE ${f.sql}`, f.params).map((r) => JSON.parse(String(r.payload_json)) as unknown);
      for (const hit of hitPayloads) {
        const p = hit as { tier: keyof typeof hits; avoided_cost_usd: string; served_cost_usd: string };
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
      const c = countByType(selector, USAGE_TYPES);
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
