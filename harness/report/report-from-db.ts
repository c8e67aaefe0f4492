import { existsSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { createAnalytics } from '../../runtime/analytics/index.ts';
import { createSystemClock } from '../../runtime/core/clock.ts';
import { createMemoryLogger } from '../../runtime/core/logger.ts';
import { formatAjvErrors, validatorFor } from '../../runtime/core/schemas.ts';
import { loadPriceTable } from '../../runtime/pricing/index.ts';
import { defaultRoutingConfig } from '../../runtime/routing/routing-config.ts';
import type { BenchReport } from '../../schemas/types/report.ts';
import { SetupError } from '../errors.ts';
import { assertReadableTraceDb, damagedTraceDbError, TraceStoreError, traceReadPragmas, walFolderError } from '../../runtime/trace/index.ts';
import { reportFingerprintSources } from './pattern-checks.ts';
import { choosePatternStore, openRunPatternStore, type PatternStoreChoice, type V1StoreChoice } from '../runs/run-pattern-store.ts';
import { assertTraceValues } from '../runs/check-run-values.ts';
import { hasRunEventTables } from '../runs/run-events.ts';
import { assertRunValues } from '../runs/run-events-seal.ts';
import { RunStore } from '../runs/run-store.ts';
import { buildReport, type SectionOf } from './build-report.ts';

/**
 * Opens an existing trace DB read-only, turning every way it can be wrong into a SetupError.
 * `values: 'per-run'` leaves the value check to the reader of one run (reportFromDb checks the run it reports).
 */
export function openTraceDbReadOnly(path: string, options: { values?: 'all' | 'per-run' } = {}): Database.Database {
  return assertTraceDb(openSqliteReadOnly(path), path, options);
}

/** An existing SQLite file opened read-only as a trace DB is read (traceReadPragmas); a SetupError naming it when it is none. */
export function openSqliteReadOnly(path: string): Database.Database {
  let bytes: number;
  try {
    bytes = statSync(path).size;
  } catch {
    // Missing or out of reach, as existsSync would say.
    throw new SetupError(`${path}: no such trace DB`);
  }
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    for (const pragma of traceReadPragmas(bytes)) db.pragma(pragma);
    db.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (e) {
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
  patternsDbPath?: string | null;
  env: NodeJS.ProcessEnv;
}

/** The run ids a trace DB holds, oldest first; a SetupError naming the DB when it holds none. */
export function runIdsOf(db: Database.Database, path: string): string[] {
  const ids = new RunStore(db, { create: false }).runIds();
  if (ids.length === 0) throw new SetupError(`${path}: no benchmark runs in this trace DB (was it written by bench run?)`);
  return ids;
}

/**
 * A run's report rebuilt from its trace DB alone (`analyze --skip-execute`, `bench view`): the store is opened
 * as the run used it, so v2 tightness is recomputed with the same embedder and α, and nothing is written.
 */
export function reportFromDb(db: Database.Database, path: string, options: ReportFromDbOptions): BenchReport {
  const runs = new RunStore(db, { create: false });
  const ids = runIdsOf(db, path);
  const runId = options.run ?? ids.at(-1)!;
  if (!ids.includes(runId)) throw new SetupError(`${path}: no run '${runId}'; runs: ${ids.join(', ')}`);
  // The values of the run reported, whatever the DB's other runs hold (a reader that opened it per-run relies on this).
  // Its events are read once: checked (or vouched for by its seal), then summed by analytics from the same rows.
  const values = hasRunEventTables(db) ? assertRunValues(db, path, runId) : null;
  if (!values) assertTraceValues(db, path, { run: runId });
  const events = values?.events ?? null;
  const provenance = runs.provenance(runId);
  const patternsPath = options.patternsDbPath ?? provenance?.patterns_db_path ?? null;
  const fingerprintVersion = provenance?.fingerprint_version ?? 'v1';
  const embeddingAlpha = provenance?.embedding_alpha ?? null;
  // Only a v2 store has an embedding cache, sized by the routing schema's defaults: a v1 store's report does not
  // load and run that validator (2.5-4 ms of a cold analyze).
  const choice = (): PatternStoreChoice | V1StoreChoice =>
    fingerprintVersion === 'v1'
      ? { fingerprint_version: 'v1' }
      : { ...choosePatternStore(defaultRoutingConfig(), {}), fingerprint_version: fingerprintVersion, embedding_provider: provenance?.embedding_provider ?? null, embedding_alpha: embeddingAlpha };
  const patterns =
    patternsPath && existsSync(patternsPath)
      ? openRunPatternStore(patternsPath, choice(), { logger: createMemoryLogger(), clock: createSystemClock(), env: options.env, canEmbed: false })
      : null;
  try {
    const report = buildReport({ runs, analytics: createAnalytics(db, loadPriceTable(), events ? { events } : {}), ...(values ? { records: values.records } : {}), runId, sectionOf: options.sectionOf, ...(patterns ? reportFingerprintSources(patterns, embeddingAlpha) : {}) });
    // What analyze writes, bench report must accept: a report its own schema rejects is never handed out.
    const validate = validatorFor<BenchReport>('report.schema.json');
    if (!validate(report)) throw new SetupError(`${path}: the report rebuilt from run ${runId} breaks schemas/report.schema.json (${formatAjvErrors(validate.errors).slice(0, 3).join('; ')}); nothing was written`);
    return report;
  } catch (e) {
    // A large DB skips the up-front integrity scan; corrupt pages met here get the same clear message.
    const damaged = damagedTraceDbError(path, e);
    throw damaged ? new SetupError(damaged.message) : e;
  } finally {
    patterns?.close();
  }
}
