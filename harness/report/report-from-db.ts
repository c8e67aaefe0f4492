import { existsSync, statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { createAnalytics } from '../../runtime/analytics/index.ts';
import { formatAjvErrors, validatorFor } from '../../runtime/core/schemas.ts';
import { openSqliteForReading } from '../../runtime/core/sqlite-reader.ts';
import { loadPriceTable } from '../../runtime/pricing/index.ts';
import { PatternReadError, readPatternFingerprints } from '../../runtime/patterns/index.ts';
import type { BenchReport } from '../../schemas/types/report.ts';
import { SetupError } from '../errors.ts';
import { assertReadableTraceDb, damagedTraceDbError, TraceStoreError, traceReadPragmas, walFolderError } from '../../runtime/trace/index.ts';
import { reportFingerprintSources } from './pattern-checks.ts';
import { DEFAULT_EMBEDDING_PROVIDER } from '../runs/run-pattern-store.ts';
import { assertTraceValues } from '../runs/check-run-values.ts';
import { hasRunEventTables } from '../runs/run-events.ts';
import { assertRunValues } from '../runs/run-events-seal.ts';
import { RunStore } from '../runs/run-store.ts';
import { buildReport, type SectionOf } from './build-report.ts';

/**
 * Opens an existing trace DB for reading only, turning every way it can be wrong into a SetupError.
 * `values: 'per-run'` leaves the value check to the reader of one run (reportFromDb checks the run it reports).
 */
export function openTraceDbReadOnly(path: string, options: { values?: 'all' | 'per-run' } = {}): Database.Database {
  return assertTraceDb(openSqliteReadOnly(path), path, options);
}

/**
 * An existing SQLite file opened for reading only (openSqliteForReading: nothing can be written, and no -wal or -shm
 * file is left beside it) as a trace DB is read (traceReadPragmas); a SetupError naming it when it is none.
 */
export function openSqliteReadOnly(path: string): Database.Database {
  let bytes: number;
  try {
    bytes = statSync(path).size;
  } catch {
    // Missing or out of reach, as existsSync would say.
    throw new SetupError(`${path}: no such trace DB`);
  }
  let db: Database.Database | null = null;
  try {
    db = openSqliteForReading(path);
    for (const pragma of traceReadPragmas(bytes)) db.pragma(pragma);
    db.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (e) {
    // A file SQLite opened but cannot read is not left open (a long-lived caller, the viewer, would keep its handle).
    db?.close();
    // Corrupt pages can reach the schema table itself (a DB with more tables): still "damaged", with what to do.
    if (String((e as { code?: unknown }).code ?? '').startsWith('SQLITE_CORRUPT')) throw new SetupError(damagedTraceDbError(path, e)!.message);
    // A WAL DB in a folder this user cannot write is readable elsewhere: say so, not that it is no trace DB.
    const folder = walFolderError(path, e);
    if (folder) throw new SetupError(folder.message);
    throw new SetupError(`${path}: not a SQLite trace DB (${(e as Error).message})`);
  }
  return db;
}

/** `db` (from openSqliteReadOnly) when it is a trace DB that can be read, as openTraceDbReadOnly checks it; else closed and a SetupError. */
export function assertTraceDb(db: Database.Database, path: string, options: { values?: 'all' | 'per-run' } = {}): Database.Database {
  try {
    // Another schema version or corrupt pages: a message naming the file and what to do, not a SqliteError stack.
    assertReadableTraceDb(db, path);
    // Values no run can have written (negative tokens, scores outside [0, 1], truncated JSON) are refused here,
    // so analyze, view and merge never print figures built on them.
    if (options.values !== 'per-run') assertTraceValues(db, path);
  } catch (e) {
    db.close();
    if (e instanceof TraceStoreError) throw new SetupError(e.message);
    throw e;
  }
  return db;
}

/** Which run of a DB to report, and where its pattern store is when not where the run recorded it. */
export interface ReportFromDbOptions {
  run?: string;
  /** The protocol's report section by name: protocols/protocols.ts's protocolFor. */
  sectionOf: SectionOf;
  /** Where the run's pattern store is, when not where the run recorded it; it is read, never written. */
  patternsDbPath?: string | null;
}

/** The run ids a trace DB holds, oldest first; a SetupError naming the DB when it holds none. */
export function runIdsOf(db: Database.Database, path: string): string[] {
  const ids = new RunStore(db, { create: false }).runIds();
  if (ids.length === 0) throw new SetupError(`${path}: no benchmark runs in this trace DB (was it written by bench run?)`);
  return ids;
}

/**
 * A run's report rebuilt from its trace DB alone (`analyze --skip-execute`, `bench view`): the pattern store is read
 * with the embeddings of the provider the run used, so v2 tightness is recomputed with the same vectors and α. Nothing
 * is written, the pattern store included; one that cannot be read leaves tightness out, with a warning saying why.
 * One read transaction: the rows checked (or vouched for by the seal) are the rows every figure is built from,
 * including those analytics reads after the check (a decision's payload, read by its rowid when a figure asks).
 */
export function reportFromDb(db: Database.Database, path: string, options: ReportFromDbOptions): BenchReport {
  return db.transaction(() => reportOfRun(db, path, options))();
}

function reportOfRun(db: Database.Database, path: string, options: ReportFromDbOptions): BenchReport {
  const runs = new RunStore(db, { create: false });
  const ids = runIdsOf(db, path);
  const runId = options.run ?? ids.at(-1)!;
  if (!ids.includes(runId)) throw new SetupError(`${path}: no run '${runId}'; runs: ${ids.join(', ')}`);
  // A store named on the command line must be there: a typo would otherwise print a report without tightness.
  if (options.patternsDbPath && !existsSync(options.patternsDbPath))
    throw new SetupError(`--patterns-db-path ${options.patternsDbPath}: no such file. Check the path, or drop the flag to read the pattern store the run recorded`);
  // The values of the run reported, whatever the DB's other runs hold (a reader that opened it per-run relies on this).
  // Its events are read once: checked (or vouched for by its seal), then summed by analytics from the same rows.
  const values = hasRunEventTables(db) ? assertRunValues(db, path, runId) : null;
  if (!values) assertTraceValues(db, path, { run: runId });
  const events = values?.events ?? null;
  const provenance = runs.provenance(runId);
  const patternsPath = options.patternsDbPath ?? provenance?.patterns_db_path ?? null;
  const warnings = runs.warnings(runId);
  let fingerprints: ReturnType<typeof reportFingerprintSources> | null = null;
  if (patternsPath && existsSync(patternsPath)) {
    // Read, never opened for writing (nor migrated); a v2 run's tightness blends the embeddings of the provider it used.
    const provider = (provenance?.fingerprint_version ?? 'v1') === 'v1' ? null : (provenance?.embedding_provider ?? DEFAULT_EMBEDDING_PROVIDER);
    try {
      fingerprints = reportFingerprintSources(readPatternFingerprints(patternsPath, provider), provenance?.embedding_alpha ?? null);
    } catch (e) {
      if (!(e instanceof PatternReadError)) throw e;
      // The store asked for on the command line is refused; the one the run recorded is said to be unreadable,
      // not shown as a store of no fingerprints.
      if (options.patternsDbPath) throw new SetupError(`--patterns-db-path: the pattern store ${e.message}`);
      warnings.push(`cluster tightness is not reported: the pattern store ${e.message}`);
    }
  }
  try {
    const report = buildReport({ runs, analytics: createAnalytics(db, loadPriceTable(), events ? { events } : {}), ...(values ? { records: values.records } : {}), runId, sectionOf: options.sectionOf, ...fingerprints, warnings });
    // What analyze writes, bench report must accept: a report its own schema rejects is never handed out.
    const validate = validatorFor<BenchReport>('report.schema.json');
    if (!validate(report)) throw new SetupError(`${path}: the report rebuilt from run ${runId} breaks schemas/report.schema.json (${formatAjvErrors(validate.errors).slice(0, 3).join('; ')}); nothing was written`);
    return report;
  } catch (e) {
    // A large DB skips the up-front integrity scan; corrupt pages met here get the same clear message.
    const damaged = damagedTraceDbError(path, e);
    throw damaged ? new SetupError(damaged.message) : e;
  }
}
