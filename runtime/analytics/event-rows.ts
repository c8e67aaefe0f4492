import { USAGE_EXPR } from './indexes.ts';

// Event rows read once by a caller that reads the run anyway (analyze) and handed to analytics, so the report's
// figures are summed from those rows instead of read again by SQL. The payload fields summed come with each row,
// extracted by SQLite with the same `->>` expressions as analytics' own queries: no payload is parsed in JavaScript
// to sum it, and each field is by construction the value those queries read.

/** A payload field as `->>` gives it: text and numbers as they are, anything absent or null as NULL. */
type Field = string | number | null;

/**
 * One row of the `events` table as analytics reads it (EVENT_ROW_COLUMNS). Each payload field is read from the
 * rows of the type that carries it and is null on the others: analytics reads a field only on its own type.
 */
export interface EventRow {
  readonly id: string;
  readonly session_id: string;
  readonly turn_id: string | null;
  readonly type: string;
  /** `route.decided` only (the one type whose payload analytics parses whole); null on the others, never read. */
  readonly payload_json: string | null;
  /** `llm.call_completed`: the model, the token counts, the recorded cost and the cache tier that served it. */
  readonly model: Field;
  readonly input_tokens: Field;
  readonly output_tokens: Field;
  readonly cached_input_tokens: Field;
  readonly cache_creation_input_tokens: Field;
  readonly cost_usd: Field;
  readonly cache_tier: Field;
  /** `route.decided`: the winning slot's policy (`chain[winner_index].policy`) and the chosen model. */
  readonly policy: Field;
  readonly chosen_model: Field;
  /** `cache.miss`: 1 when it explored, else 0 (NULL when absent). */
  readonly explored: Field;
  /** `cache.hit`: the tier and the amounts. */
  readonly tier: Field;
  readonly avoided_cost_usd: Field;
  readonly served_cost_usd: Field;
}

/** A payload field of `type`'s rows, NULL on the others: a row pays only for the `->>` of its own type's fields. */
const ofType = (type: string, expr: string) => `CASE type WHEN '${type}' THEN ${expr} END`;

/** Each EventRow column and its expression over `events`, in the row's order. */
const COLUMNS: readonly (readonly [keyof EventRow, string])[] = [
  ['id', 'id'],
  ['session_id', 'session_id'],
  ['turn_id', 'turn_id'],
  ['type', 'type'],
  ['payload_json', ofType('route.decided', 'payload_json')],
  ['model', ofType('llm.call_completed', USAGE_EXPR.model)],
  ['input_tokens', ofType('llm.call_completed', USAGE_EXPR.input_tokens)],
  ['output_tokens', ofType('llm.call_completed', USAGE_EXPR.output_tokens)],
  ['cached_input_tokens', ofType('llm.call_completed', USAGE_EXPR.cached_input_tokens)],
  ['cache_creation_input_tokens', ofType('llm.call_completed', USAGE_EXPR.cache_creation_input_tokens)],
  ['cost_usd', ofType('llm.call_completed', "payload_json ->> '$.cost_usd'")],
  ['cache_tier', ofType('llm.call_completed', "payload_json ->> '$.cache_tier'")],
  ['policy', ofType('route.decided', "payload_json ->> ('$.chain[' || (payload_json ->> '$.winner_index') || '].policy')")],
  ['chosen_model', ofType('route.decided', "payload_json ->> '$.chosen_model'")],
  ['explored', ofType('cache.miss', "payload_json ->> '$.explored' = 1")],
  ['tier', ofType('cache.hit', "payload_json ->> '$.tier'")],
  ['avoided_cost_usd', ofType('cache.hit', "payload_json ->> '$.avoided_cost_usd'")],
  ['served_cost_usd', ofType('cache.hit', "payload_json ->> '$.served_cost_usd'")],
];

/** The columns of an EventRow, as a SELECT list over `events` (each named as its field). */
export const EVENT_ROW_COLUMNS = COLUMNS.map(([name, expr]) => (name === expr ? name : `${expr} AS ${name}`)).join(', ');

/** The same columns unnamed, for a statement read in raw mode and turned into rows by eventRowOf. */
export const EVENT_ROW_VALUES = COLUMNS.map(([, expr]) => expr).join(', ');

/** An EventRow from the values of EVENT_ROW_VALUES, in that order (a raw row costs less to read than a named one). */
export function eventRowOf(v: readonly unknown[]): EventRow {
  return {
    id: v[0] as string,
    session_id: v[1] as string,
    turn_id: v[2] as string | null,
    type: v[3] as string,
    payload_json: v[4] as string | null,
    model: v[5] as Field,
    input_tokens: v[6] as Field,
    output_tokens: v[7] as Field,
    cached_input_tokens: v[8] as Field,
    cache_creation_input_tokens: v[9] as Field,
    cost_usd: v[10] as Field,
    cache_tier: v[11] as Field,
    policy: v[12] as Field,
    chosen_model: v[13] as Field,
    explored: v[14] as Field,
    tier: v[15] as Field,
    avoided_cost_usd: v[16] as Field,
    served_cost_usd: v[17] as Field,
  };
}

/** Pre-read rows by session, each session's in id order. */
export type SessionEventRows = ReadonlyMap<string, readonly EventRow[]>;

/** Rows a caller read of some sessions: every row of `types` (of every type when null) of each session in `sessions`. */
export interface PreReadEvents {
  sessions: ReadonlySet<string>;
  types: ReadonlySet<string> | null;
  /** By session, in id order; a session of `sessions` with no such row may be absent. */
  rows: SessionEventRows;
  /**
   * Each session's count of rows per COUNTED_TYPES type, when the reader counted them on its way (the events
   * pass): every session of `sessions`, one without rows or a type without rows absent.
   */
  counts?: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

/** The event types a report counts per selection (usageCounts, routing's failures, semanticCache). */
export const USAGE_TYPES: readonly string[] = ['turn.started', 'llm.call_completed', 'llm.call_failed', 'tool.called', 'tool.failed', 'tool.input_invalid'];

/** The event types analytics counts per session: the usage types and the cache's. */
export const COUNTED_TYPES: readonly string[] = [...USAGE_TYPES, 'cache.miss', 'cache.set', 'cache.evicted'];

/** The event types whose payloads analytics reads: pre-reading these (and counting the rest in SQL) is enough. */
export const PAYLOAD_TYPES: readonly string[] = ['llm.call_completed', 'route.decided', 'cache.hit', 'cache.miss'];

/** Groups rows ordered by (session_id, id) by session, keeping that order. */
export function rowsBySession(rows: readonly EventRow[]): Map<string, EventRow[]> {
  const out = new Map<string, EventRow[]>();
  for (const r of rows) {
    const list = out.get(r.session_id);
    if (list) list.push(r);
    else out.set(r.session_id, [r]);
  }
  return out;
}
