import { USAGE_EXPR } from './indexes.ts';

// Event rows read once by a caller that reads the run anyway (analyze) and handed to analytics, so the report's
// figures are summed from those rows instead of read again by SQL. The payload fields summed come with each row,
// extracted by SQLite with the same `->>` expressions as analytics' own queries: no payload is parsed in JavaScript
// to sum it, and each field is by construction the value those queries read.
// A decision's whole payload (routeDecisions parses it) is not among them: analytics reads it by the row's rowid when
// a figure asks for the decisions of some sessions, so the decisions no figure parses (a forced arm's) cost nothing.

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
  /** `route.decided`: the row's rowid, by which routeDecisions reads its payload (not pre-read: see above). */
  readonly rowid: number | null;
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

/** The columns every row has, in the row's order. */
const PLAIN: readonly (keyof EventRow)[] = ['id', 'session_id', 'turn_id', 'type'];

/**
 * Each payload type's fields and their expressions over `events`, in the order they take a raw row's slots after
 * its plain columns. The most frequent type first: a slot's CASE compares `type` with each type in this order.
 */
const PAYLOAD_FIELDS: readonly (readonly [type: string, fields: readonly (readonly [keyof EventRow, string])[]])[] = [
  [
    'llm.call_completed',
    [
      ['model', USAGE_EXPR.model],
      ['input_tokens', USAGE_EXPR.input_tokens],
      ['output_tokens', USAGE_EXPR.output_tokens],
      ['cached_input_tokens', USAGE_EXPR.cached_input_tokens],
      ['cache_creation_input_tokens', USAGE_EXPR.cache_creation_input_tokens],
      ['cost_usd', "payload_json ->> '$.cost_usd'"],
      ['cache_tier', "payload_json ->> '$.cache_tier'"],
    ],
  ],
  [
    'route.decided',
    [
      ['rowid', 'rowid'],
      ['policy', "payload_json ->> ('$.chain[' || (payload_json ->> '$.winner_index') || '].policy')"],
      ['chosen_model', "payload_json ->> '$.chosen_model'"],
    ],
  ],
  [
    'cache.hit',
    [
      ['tier', "payload_json ->> '$.tier'"],
      ['avoided_cost_usd', "payload_json ->> '$.avoided_cost_usd'"],
      ['served_cost_usd', "payload_json ->> '$.served_cost_usd'"],
    ],
  ],
  ['cache.miss', [['explored', "payload_json ->> '$.explored' = 1"]]],
];

/** The EventRow fields in the interface's order: the named SELECT's columns, so its rows' keys come in this order. */
const ROW_ORDER: readonly (keyof EventRow)[] = [
  ...PLAIN,
  'rowid',
  'model',
  'input_tokens',
  'output_tokens',
  'cached_input_tokens',
  'cache_creation_input_tokens',
  'cost_usd',
  'cache_tier',
  'policy',
  'chosen_model',
  'explored',
  'tier',
  'avoided_cost_usd',
  'served_cost_usd',
];

/** Each payload field's expression over `events`, NULL on the rows of other types. */
const FIELD_EXPR = new Map(PAYLOAD_FIELDS.flatMap(([type, fields]) => fields.map(([name, expr]) => [name, ofType(type, expr)] as const)));

/** Each EventRow column and its expression over `events`, in the row's order. */
const COLUMNS: readonly (readonly [keyof EventRow, string])[] = ROW_ORDER.map((name) => [name, FIELD_EXPR.get(name) ?? name]);

/** The columns of an EventRow, as a SELECT list over `events` (each named as its field). */
export const EVENT_ROW_COLUMNS = COLUMNS.map(([name, expr]) => (name === expr ? name : `${expr} AS ${name}`)).join(', ');

/** How many slots a raw row has after its plain columns: as many as the type with the most fields. */
const SLOTS = Math.max(...PAYLOAD_FIELDS.map(([, fields]) => fields.length));

/**
 * The same values packed for a statement read in raw mode and turned into rows by eventRowOf: the plain columns,
 * then slot i holding the i-th field of the row's own type (NULL past its last). 11 values a row instead of 18:
 * better-sqlite3 sets each value of a raw row into its array one by one, and most of the 18 were NULL.
 */
const valuesOf = (plain: readonly string[]) =>
  [
    ...plain,
    ...Array.from({ length: SLOTS }, (_, i) => {
      const whens = PAYLOAD_FIELDS.filter(([, fields]) => i < fields.length).map(([type, fields]) => `WHEN '${type}' THEN ${fields[i]![1]}`);
      return `CASE type ${whens.join(' ')} END`;
    }),
  ].join(', ');

export const EVENT_ROW_VALUES = valuesOf(PLAIN);

/**
 * EVENT_ROW_VALUES with NULL for the session, for a reader that groups rows by session and knows it: one value less
 * to hand over per row (a JSON array per session), set back from the group by `eventRowOf(values, session)`.
 */
export const SESSION_EVENT_ROW_VALUES = valuesOf(PLAIN.map((c) => (c === 'session_id' ? 'NULL' : c)));

/**
 * An EventRow from the values of EVENT_ROW_VALUES, in that order (a raw row costs less to read than a named one).
 * Written out field by field for PAYLOAD_FIELDS' slots (a test holds the two to the same rows): one object shape
 * for every row, as analytics reads them in hot loops.
 */
export function eventRowOf(v: readonly unknown[], session = v[1] as string): EventRow {
  const type = v[3] as string;
  const llm = type === 'llm.call_completed';
  const decided = type === 'route.decided';
  const hit = type === 'cache.hit';
  return {
    id: v[0] as string,
    session_id: session,
    turn_id: v[2] as string | null,
    type,
    rowid: decided ? (v[4] as number) : null,
    model: llm ? (v[4] as Field) : null,
    input_tokens: llm ? (v[5] as Field) : null,
    output_tokens: llm ? (v[6] as Field) : null,
    cached_input_tokens: llm ? (v[7] as Field) : null,
    cache_creation_input_tokens: llm ? (v[8] as Field) : null,
    cost_usd: llm ? (v[9] as Field) : null,
    cache_tier: llm ? (v[10] as Field) : null,
    policy: decided ? (v[5] as Field) : null,
    chosen_model: decided ? (v[6] as Field) : null,
    explored: type === 'cache.miss' ? (v[4] as Field) : null,
    tier: hit ? (v[4] as Field) : null,
    avoided_cost_usd: hit ? (v[5] as Field) : null,
    served_cost_usd: hit ? (v[6] as Field) : null,
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
