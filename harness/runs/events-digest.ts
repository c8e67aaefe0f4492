import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { eventRowOf, SESSION_EVENT_ROW_VALUES, type EventRow } from '../../runtime/analytics/event-rows.ts';
import { RUN_EVENTS, RUN_SESSIONS_CTE } from './run-events.ts';

// The digest a run's seal records of its event rows (bench_run_seal.events_digest), in two versions. Each is
// SHA-256 over one byte string that SQLite builds from the rows and that decodes back into exactly those rows
// (every value's storage class, byte length and bytes), so any changed, added, removed or moved row changes it.
// The string is built and handed over one session at a time (GROUP BY session_id): a buffer of a session's rows is
// reused by SQLite, where one buffer of the whole run (4 MB for a nightly run) was fresh memory twice, once in
// SQLite and once in Node, each page of it a page fault (about 2.5 us here, 2,900 of them in a cold digest).
// Rows reach the aggregates in (session_id, id) order because the (session_id, id) index serves both the
// `session_id IN (...)` search and the GROUP BY (a test pins that plan); were a later SQLite to plan it otherwise,
// a digest would not match its seal and the run would be checked in full, never the reverse.

/** A digest version: 1 as the first sealed runs hold it (a bare hex digest), 2 as seals are written now ('v2:' hex). */
export type EventsDigestVersion = 1 | 2;

/** The version new seals are written with. */
export const EVENTS_DIGEST_VERSION: EventsDigestVersion = 2;

/** A value as `storage class, [sep,] byte length, ':', bytes`; a NULL has no length and no bytes ('null:'), so it is never ''. */
const field = (c: string, sep: string) => `typeof(${c}), ${sep}octet_length(${c}), ':', ${c}`;

/**
 * Version 1, one row: session, id, type and payload each as `storage class ':' byte length ':' value`. Rows in
 * (session_id, id) order; the run's string is the rows' strings one after another (a session's in one chunk).
 */
const V1_ROW = `concat(${['session_id', 'id', 'type', 'payload_json'].map((c) => field(c, "':', ")).join(', ')})`;

/**
 * Version 2, one session of the run with rows: its id, then each of its rows in id order as id, type and payload,
 * each as `storage class, byte length ':' value`, then '.'. Cheaper than version 1 (no session id per row, three
 * separators fewer: 20.7 against 22.3 ms CPU in a cold process on a nightly run) and as unambiguous: a storage
 * class is one of five lowercase words, none the start of another, followed by digits or ':'; the length says
 * where the value ends; a row starts with a lowercase letter, so the '.' that ends a session cannot be a row.
 */
const V2_ROW = `concat(${['id', 'type', 'payload_json'].map((c) => field(c, '')).join(', ')})`;

/** SQL string literals of `types`, for an IN list (empty: no type). */
const typeList = (types: readonly string[]) => types.map((t) => `'${t.replace(/'/g, "''")}'`).join(', ');

/**
 * One row per session of the run with rows (sub-sessions included), in session order: its rows of `types` as a JSON
 * array of SESSION_EVENT_ROW_VALUES arrays (in id order), its chunk of the digest's string, its id and its count of rows of
 * each of `countTypes`. The chunks one after another are the string the run hashes. The rows and the counts come from
 * the same rows in the same pass, so a reader takes the rows it sums and the counts it reports from here instead of
 * walking the run's 10k rows again, or seeking each row it sums a second time (and one JSON array per session costs
 * less to hand over than a JavaScript value per field).
 */
export function eventsPassSql(version: EventsDigestVersion, types: readonly string[], countTypes: readonly string[] = []): string {
  const chunk = version === 1 ? `group_concat(${V1_ROW}, '')` : `concat(${field('session_id', '')}, group_concat(${V2_ROW}, ''), '.')`;
  const counts = countTypes.map((t) => `, count(*) FILTER (WHERE type = ${typeList([t])})`).join('');
  const rows = types.length === 0 ? "'[]'" : `json_group_array(json_array(${SESSION_EVENT_ROW_VALUES})) FILTER (WHERE type IN (${typeList(types)}))`;
  return `${RUN_SESSIONS_CTE} SELECT ${rows}, CAST(${chunk} AS BLOB), session_id${counts} ${RUN_EVENTS} GROUP BY session_id`;
}

/** The digest text as a seal records it: version 1 is the bare hex, later versions are prefixed with their name. */
function digestText(version: EventsDigestVersion, hex: string): string {
  return version === 1 ? hex : `v${version}:${hex}`;
}

/** The version a seal's digest text was made with, or null for a format this bench does not know (the run is then checked). */
export function eventsDigestVersionOf(digest: string): EventsDigestVersion | null {
  if (/^[0-9a-f]{64}$/.test(digest)) return 1;
  if (/^v2:[0-9a-f]{64}$/.test(digest)) return 2;
  return null;
}

/** The run's digest string, one chunk per session with rows, in order: the chunks one after another are what `version` hashes. */
export function* eventsDigestChunks(db: Database.Database, runId: string, version: EventsDigestVersion): Generator<Buffer> {
  for (const [, chunk] of db.prepare(eventsPassSql(version, [])).raw().iterate(runId) as IterableIterator<[string, Buffer]>) yield chunk;
}

/** A run's sessions with rows and the digest of its event rows, from one pass over them. */
export interface RunEventsPass {
  /**
   * The run's sessions (sub-sessions included) that hold rows, in session order: those the pass grouped. A session
   * without rows is not among them; a reader asked about one finds in SQL that it has none.
   */
  sessions: string[];
  /** The digest text of `version` over every event row of the run: what its seal records. */
  digest: string;
  /** The run's rows of the types asked for, as analytics reads them, by session (sessions without such rows absent) in id order. */
  rows: Map<string, EventRow[]>;
  /** Each session's count of rows of each type counted (types without rows, and sessions without rows, absent). */
  counts: Map<string, Map<string, number>>;
}

/**
 * The run's sessions with rows (sub-sessions included), the digest of every event row it holds, its rows of `types`
 * as analytics reads them and each session's count of rows of each of `countTypes`, in one pass over its rows: one
 * statement, whose groups are the sessions (a second run of the sessions CTE for the list was about 0.8 ms of a cold analyze).
 * A row of `types` whose payload SQLite cannot parse as JSON stops the pass with SQLite's error (its fields are read
 * with `->>`): the caller checks the rows to name it (run-events-seal.ts).
 */
export function runEventsPass(
  db: Database.Database,
  runId: string,
  version: EventsDigestVersion = EVENTS_DIGEST_VERSION,
  types: readonly string[] = [],
  countTypes: readonly string[] = [],
): RunEventsPass {
  const hash = createHash('sha256');
  const rows = new Map<string, EventRow[]>();
  const sessions: string[] = [];
  const counts = new Map<string, Map<string, number>>();
  for (const row of db.prepare(eventsPassSql(version, types, countTypes)).raw().iterate(runId) as IterableIterator<[string, Buffer, string, ...number[]]>) {
    const [picked, chunk, session] = row;
    // As JSON, numbers come back as the doubles SQLite holds (it writes a real with the digits to round-trip).
    if (picked !== '[]') rows.set(session, (JSON.parse(picked) as unknown[][]).map((v) => eventRowOf(v, session)));
    hash.update(chunk);
    sessions.push(session);
    let mine: Map<string, number> | undefined;
    for (let i = 0; i < countTypes.length; i++) {
      const n = row[3 + i] as number;
      if (n > 0) (mine ??= new Map()).set(countTypes[i]!, n);
    }
    if (mine !== undefined) counts.set(session, mine);
  }
  return { sessions, digest: digestText(version, hash.digest('hex')), rows, counts };
}

/** The digest text of `version` over every event row of the run: what its seal records of the rows checked. */
export function runEventsDigest(db: Database.Database, runId: string, version: EventsDigestVersion = EVENTS_DIGEST_VERSION): string {
  return runEventsPass(db, runId, version).digest;
}
