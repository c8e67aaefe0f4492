import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { cachedParse } from '../../runtime/core/parsed-file-cache.ts';
import { formatAjvErrors } from '../../runtime/core/schemas.ts';
import { EVENTS_SCHEMA_DIR, eventCatalog, eventCatalogDigest, type EventCatalog } from '../../runtime/events/index.ts';
import { SetupError } from '../errors.ts';
import { RUN_EVENTS, RUN_SESSIONS_CTE } from './run-events.ts';
import { WORKLOAD_RUNS_SQL, workloadRunRecord, type WorkloadRunRecord } from './run-store.ts';

/**
 * The values of a trace DB that SQLite accepts but no run can have written: a hand-edited or tampered file,
 * or one written by a broken tool. Read paths (analyze, report, view, merge) refuse them here, naming the
 * DB, table, row and field, instead of printing negative spend, `Infinity` or a SyntaxError stack.
 */
export class BadTraceValueError extends SetupError {
  constructor(path: string, table: string, row: string, field: string, problem: string) {
    super(`${path}: table ${table}, row ${row}, field ${field}: ${problem}. No bench run writes this; the DB was edited or damaged — restore it from a copy or re-run`);
  }
}

/** An event row as an array (type, payload_json, id): no object per row for the 10k rows of a nightly run. */
type RawEventRow = [type: string, payload: string, id: string];

/** A workload_runs row as its checks read it. */
export interface WorkloadRunRow {
  id: string;
  rep: unknown;
  turns: unknown;
  started_at_us: unknown;
  ended_at_us: unknown;
  score: unknown;
  confidence: unknown;
  session_ids_json: string;
  check_json: string | null;
  assertions_json: string;
}

/** A bench_runs row as its checks read it. */
export interface BenchRunRow {
  run_id: string;
  provenance_json: string;
  warnings_json: string;
  recording_errors_json: string;
}

/** A JSON cell parsed, or the error that names where it is. */
function parseCell(path: string, table: string, row: string, field: string, text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new BadTraceValueError(path, table, row, field, `malformed JSON (${(e as Error).message})`);
  }
}

/** A column that must hold a whole number >= 0. */
function wholeNumber(path: string, table: string, row: string, field: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new BadTraceValueError(path, table, row, field, `${String(value)} is not a whole number >= 0`);
}

/** A column that must hold a finite number in [0, 1]: every rep is judged, so a NULL is as bad as 1.5. */
function unit(path: string, table: string, row: string, field: string, value: unknown): void {
  if (value === null || value === undefined) throw new BadTraceValueError(path, table, row, field, `${String(value)} is not a number in [0, 1]`);
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) throw new BadTraceValueError(path, table, row, field, `${String(value)} is outside [0, 1]`);
}

/** The events of one run (its sessions and their sub-sessions, through the (session_id, id) index): a run's check reads no other run. */
const RUN_EVENTS_SQL = `${RUN_SESSIONS_CTE} SELECT type, payload_json, id ${RUN_EVENTS}`;

/**
 * What the event checks are: bump when a check below changes, so a run sealed as checked by the old ones is
 * checked again (the catalog's schemas are in the stamp through its digest).
 */
const EVENT_CHECKS_VERSION = 1;

/**
 * Names the checks a run's events pass (these checks, this catalog's schemas): recorded with the run's seal. From
 * the catalog's files alone: a reader whose seal matches never loads the catalog. Kept in the parsed-file cache
 * under catalog.json: that cache exists only while dist/ is fresh, that is while every file of the catalog is as
 * the build read it (each is an input of the bundle its stamp checks at start), so reading and hashing
 * catalog.json and its 27 schemas again at every start (about 1 ms of a cold analyze) would find the same stamp.
 */
export function eventChecksStamp(): string {
  return cachedParse('event-checks-stamp', join(EVENTS_SCHEMA_DIR, 'catalog.json'), () => {
    const catalog = eventCatalogDigest();
    return `event-checks/${EVENT_CHECKS_VERSION} catalog/${catalog.version} sha256:${catalog.digest}`;
  });
}

/** One payload parses, matches its catalog schema (whole tokens >= 0, finite numbers) and costs >= 0. */
function checkPayload(catalog: EventCatalog, path: string, type: string, text: string, id: string): void {
  const payload = parseCell(path, 'events', id, 'payload_json', text) as Record<string, unknown>;
  const validate = catalog.validator(type);
  // A type from a newer catalog is skipped by every reader, so it is not checked either.
  if (validate && !validate(payload)) throw new BadTraceValueError(path, 'events', id, 'payload_json', `a ${type} payload that breaks its schema (${formatAjvErrors(validate.errors).join('; ')})`);
  const cost = payload?.cost_usd;
  if (typeof cost === 'string' && cost.startsWith('-')) throw new BadTraceValueError(path, 'events', id, 'payload_json/cost_usd', `negative cost ${cost}`);
}

/** Every JSON payload (of `run`, or of the whole DB) passes checkPayload. */
function checkEvents(db: Database.Database, path: string, run: string | null): void {
  const catalog = eventCatalog();
  const st = run === null ? db.prepare('SELECT type, payload_json, id FROM events') : db.prepare(RUN_EVENTS_SQL);
  const rows = (run === null ? st.raw(true).iterate() : st.raw(true).iterate(run)) as IterableIterator<RawEventRow>;
  for (const [type, text, id] of rows) checkPayload(catalog, path, type, text, id);
}

/**
 * Every event payload of run `runId` passes checkPayload. Read row by row and dropped: holding a run's 10k
 * payloads for the report's whole life cost more in garbage collection than reading the few it sums again.
 */
export function checkRunEvents(db: Database.Database, path: string, runId: string): void {
  checkEvents(db, path, runId);
}

/** The columns of the harness's rows by their check. */
const BENCH_RUN_JSON = ['provenance_json', 'warnings_json', 'recording_errors_json'] as const;
const WORKLOAD_RUN_COUNTS = ['rep', 'turns', 'started_at_us', 'ended_at_us'] as const;
const WORKLOAD_RUN_JSON = ['session_ids_json', 'check_json', 'assertions_json'] as const;

/** A bench_runs row's JSON columns parse. */
export function checkBenchRunRow(path: string, r: BenchRunRow): void {
  for (const field of BENCH_RUN_JSON) parseCell(path, 'bench_runs', r.run_id, field, r[field]);
}

/**
 * A workload_runs row's counts are whole, its score and confidence present and in [0, 1], its JSON columns parse;
 * returns those columns parsed, in WORKLOAD_RUN_JSON's order.
 */
export function checkWorkloadRunRow(path: string, r: WorkloadRunRow): unknown[] {
  for (const field of WORKLOAD_RUN_COUNTS) wholeNumber(path, 'workload_runs', r.id, field, r[field]);
  unit(path, 'workload_runs', r.id, 'score', r.score);
  unit(path, 'workload_runs', r.id, 'confidence', r.confidence);
  return WORKLOAD_RUN_JSON.map((field) => parseCell(path, 'workload_runs', r.id, field, r[field]));
}

/**
 * SQL true when column `c` holds a value parseCell passes for sure: NULL, or text JSON that SQLite's strict
 * (RFC 8259) parser accepts and that holds no NUL (SQLite's parser stops at one, JSON.parse does not). A row
 * whose values SQLite vouches for (this, wholeOk, unitOk) is not read into JavaScript; any other row is, and is
 * checked as before, so an error names the same first row and value. A fuzz test holds that every text vouched
 * for here parses.
 */
export const jsonVouched = (c: string) => `(${c} IS NULL OR (typeof(${c}) = 'text' AND instr(${c}, char(0)) = 0 AND json_valid(${c})))`;
/** An integer >= 0: what wholeNumber passes (it also passes a real with a whole value, which is then read and checked). */
const wholeOk = (c: string) => `(typeof(${c}) = 'integer' AND ${c} >= 0)`;
/** An integer or real in [0, 1]: what unit passes. */
const unitOk = (c: string) => `(typeof(${c}) IN ('integer', 'real') AND ${c} >= 0 AND ${c} <= 1)`;
/** Rows whose values are not all vouched for (coalesce: a NULL verdict is no verdict). */
const notVouched = (tests: string[]) => `NOT coalesce(${tests.join(' AND ')}, 0)`;
const BENCH_RUN_VOUCHED = BENCH_RUN_JSON.map(jsonVouched);
const WORKLOAD_RUN_VOUCHED = [...WORKLOAD_RUN_COUNTS.map(wholeOk), unitOk('score'), unitOk('confidence'), ...WORKLOAD_RUN_JSON.map(jsonVouched)];

/**
 * The harness's rows (of `run`, or of every run): JSON columns parse, counts are whole, scores and confidences are
 * present and in [0, 1]. Of every run, only the rows SQLite cannot vouch for are read and checked here (JSON.parse
 * of a nightly run's 400 KB of report cells was most of this check's 3.5 ms). Of one run, its workload_runs rows
 * are all read, checked as they are parsed, and returned as the run's records (RunStore.workloadRuns' order): a
 * reader of the run takes them from here instead of reading and parsing the same cells again.
 */
export function checkRunRows(db: Database.Database, path: string, run: string): WorkloadRunRecord[];
export function checkRunRows(db: Database.Database, path: string, run: string | null): WorkloadRunRecord[] | void;
export function checkRunRows(db: Database.Database, path: string, run: string | null): WorkloadRunRecord[] | void {
  const where = run === null ? '' : 'run_id = ? AND ';
  const params = run === null ? [] : [run];
  for (const r of db.prepare(`SELECT run_id, ${BENCH_RUN_JSON.join(', ')} FROM bench_runs WHERE ${where}${notVouched(BENCH_RUN_VOUCHED)}`).iterate(...params) as IterableIterator<BenchRunRow>) checkBenchRunRow(path, r);
  if (run !== null) return checkedWorkloadRuns(db, path, run);
  checkWorkloadRunRows(db, path, null);
}

/**
 * Run `run`'s records, read once and checked in JavaScript as they are built (the report reads them next: parsing
 * the JSON cells once here costs less than SQLite's json_valid over them and a parse after). Any row refused is
 * checked again by checkWorkloadRunRows, which throws the error a check of the rows SQLite cannot vouch for throws
 * (the same first row, in its scan order).
 */
function checkedWorkloadRuns(db: Database.Database, path: string, run: string): WorkloadRunRecord[] {
  const records: WorkloadRunRecord[] = [];
  for (const x of db.prepare(WORKLOAD_RUNS_SQL).all(run) as (WorkloadRunRow & Record<string, unknown>)[]) {
    let cells: unknown[];
    try {
      cells = checkWorkloadRunRow(path, x);
    } catch (e) {
      if (!(e instanceof BadTraceValueError)) throw e;
      checkWorkloadRunRows(db, path, run);
      throw e;
    }
    records.push(workloadRunRecord(x, cells[0], cells[1], cells[2]));
  }
  return records;
}

/** The workload_runs rows (of `run`, or of every run) SQLite cannot vouch for, read and checked. */
function checkWorkloadRunRows(db: Database.Database, path: string, run: string | null): void {
  const where = run === null ? '' : 'run_id = ? AND ';
  const params = run === null ? [] : [run];
  const columns = ['id', ...WORKLOAD_RUN_COUNTS, 'score', 'confidence', ...WORKLOAD_RUN_JSON].join(', ');
  for (const r of db.prepare(`SELECT ${columns} FROM workload_runs WHERE ${where}${notVouched(WORKLOAD_RUN_VOUCHED)}`).iterate(...params) as IterableIterator<WorkloadRunRow>) checkWorkloadRunRow(path, r);
}

/**
 * Throws a BadTraceValueError (exit 2) for the first value no run can have written: in the rows and events
 * of `options.run` when given (analyze reads one run, so a DB of many nights costs what one run costs),
 * else anywhere in the DB.
 */
export function assertTraceValues(db: Database.Database, path: string, options: { run?: string } = {}): void {
  // A DB without the harness's tables holds no run; the readers say so themselves.
  const has = (table: string) => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
  if (!has('bench_runs') || !has('workload_runs')) return;
  const run = options.run ?? null;
  checkRunRows(db, path, run);
  // Without a sessions table a run's sub-sessions cannot be told apart: every event is checked.
  if (has('events')) checkEvents(db, path, run !== null && has('sessions') ? run : null);
}
