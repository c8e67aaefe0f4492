import { USAGE_EXPR } from './indexes.ts';

// Event rows read once by a caller that reads the run anyway (analyze) and handed to analytics, so the report's
// figures are summed from those rows instead of read again by SQL. The payload fields summed come with each row,
// extracted by SQLite with the same `->>` expressions as analytics' own queries: no payload is parsed in JavaScript
// to sum it, and each field is by construction the value those queries read.

/** A payload field as `->>` gives it: text and numbers as they are, anything absent or null as NULL. */
type Field = string | number | null;

/** One row of the `events` table as analytics reads it (PRE_READ_COLUMNS). */
export interface EventRow {
  readonly id: string;
  readonly session_id: string;
  readonly turn_id: string | null;
  readonly type: string;
  readonly payload_json: string;
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

/** The columns of an EventRow, as a SELECT list over `events`. */
export const EVENT_ROW_COLUMNS = [
  'id',
  'session_id',
  'turn_id',
  'type',
  'payload_json',
  `${USAGE_EXPR.model} AS model`,
  `${USAGE_EXPR.input_tokens} AS input_tokens`,
  `${USAGE_EXPR.output_tokens} AS output_tokens`,
  `${USAGE_EXPR.cached_input_tokens} AS cached_input_tokens`,
  `${USAGE_EXPR.cache_creation_input_tokens} AS cache_creation_input_tokens`,
  "payload_json ->> '$.cost_usd' AS cost_usd",
  "payload_json ->> '$.cache_tier' AS cache_tier",
  "payload_json ->> ('$.chain[' || (payload_json ->> '$.winner_index') || '].policy') AS policy",
  "payload_json ->> '$.chosen_model' AS chosen_model",
  "payload_json ->> '$.explored' = 1 AS explored",
  "payload_json ->> '$.tier' AS tier",
  "payload_json ->> '$.avoided_cost_usd' AS avoided_cost_usd",
  "payload_json ->> '$.served_cost_usd' AS served_cost_usd",
].join(', ');

/** Pre-read rows by session, each session's in id order. */
export type SessionEventRows = ReadonlyMap<string, readonly EventRow[]>;

/** Rows a caller read of some sessions: every row of `types` (of every type when null) of each session in `sessions`. */
export interface PreReadEvents {
  sessions: ReadonlySet<string>;
  types: ReadonlySet<string> | null;
  /** By session, in id order; a session of `sessions` with no such row may be absent. */
  rows: SessionEventRows;
}

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
