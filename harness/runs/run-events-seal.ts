import type Database from 'better-sqlite3';
import { COUNTED_TYPES, PAYLOAD_TYPES, type PreReadEvents } from '../../runtime/analytics/event-rows.ts';
import { BadTraceValueError, checkRunEvents, checkRunRows, eventChecksStamp } from './check-run-values.ts';
import type { WorkloadRunRecord } from './run-store.ts';
import { eventsDigestVersionOf, runEventsDigest, runEventsPass, type EventsDigestVersion, type RunEventsPass } from './events-digest.ts';
import { hasRunEventTables, readRunEvents, runSessionIds } from './run-events.ts';

// A finished run's events are checked once, when it is sealed: the seal records the digest of the rows that
// passed and which checks they passed (bench_run_seal's events_digest and events_checked_with). A reader hashes
// the rows (in SQLite) with the digest's version the seal names and skips the schema checks only when both match;
// any changed, added or removed row, another catalog or other checks, or a digest format it does not know, and it
// checks every payload as before. New seals are written with the current version; older seals keep verifying.
// The digest is tamper-evidence against an edit, not against someone who recomputes it: like the seal without
// METIS_SEAL_KEY (docs/threat-model.md).

/** What a run's seal records of its events: the digest of the rows checked and the checks they passed. */
export interface EventsSeal {
  digest: string;
  checked_with: string;
}

/** The events seal of a run's rows when every payload passes the checks, else null (the run is then checked at every read). */
export function eventsSealOf(db: Database.Database, runId: string): EventsSeal | null {
  if (!hasRunEventTables(db)) return null;
  try {
    checkRunEvents(db, db.name, runId);
  } catch (e) {
    if (e instanceof BadTraceValueError) return null;
    throw e;
  }
  return { digest: runEventsDigest(db, runId), checked_with: eventChecksStamp() };
}

/** The events seal a run's seal row holds, or null (no seal, a seal written before events were sealed, or none recorded). */
export function readEventsSeal(db: Database.Database, runId: string): EventsSeal | null {
  const columns = db.prepare("SELECT name FROM pragma_table_info('bench_run_seal') WHERE name IN ('events_digest', 'events_checked_with')").all();
  if (columns.length !== 2) return null;
  const row = db.prepare('SELECT events_digest AS digest, events_checked_with AS checked_with FROM bench_run_seal WHERE run_id = ?').get(runId) as { digest: unknown; checked_with: unknown } | undefined;
  return row && typeof row.digest === 'string' && typeof row.checked_with === 'string' ? { digest: row.digest, checked_with: row.checked_with } : null;
}

/** How a run's event values were found good: by its seal (digest and checks matched) or by checking every payload. */
export type RunValuesVerdict = 'sealed' | 'checked';

/** What assertRunValues found, and the run's rows it read on the way: its events for analytics to sum, its records for the report. */
export interface RunValues {
  verdict: RunValuesVerdict;
  events: PreReadEvents;
  /** The run's workload_runs rows as RunStore.workloadRuns gives them, checked. */
  records: WorkloadRunRecord[];
}

/**
 * The events pass of a run whose seal can match, reading the rows analytics sums on its way. Their payload fields are
 * read (`->>`) before the digest says whether the run is as sealed: a payload SQLite cannot parse as JSON stops the
 * pass, and is then refused as the checks refuse it, naming its row (an edit of a sealed run), not as an SQLite error.
 */
function eventsPass(db: Database.Database, path: string, runId: string, version: EventsDigestVersion): RunEventsPass {
  try {
    return runEventsPass(db, runId, version, PAYLOAD_TYPES, COUNTED_TYPES);
  } catch (e) {
    checkRunEvents(db, path, runId);
    throw e;
  }
}

/**
 * Throws a BadTraceValueError (exit 2) for the first value of run `runId` no run can have written: its event
 * payloads are schema-checked unless the run's seal vouches for exactly these rows under these checks; the
 * harness's own rows (a few hundred) are always checked. Returns the run's rows of the types analytics parses and
 * its records.
 * One read transaction: the rows digested (or checked) are the rows handed on.
 */
export function assertRunValues(db: Database.Database, path: string, runId: string): RunValues {
  return db.transaction((): RunValues => {
    const records = checkRunRows(db, path, runId);
    const seal = readEventsSeal(db, runId);
    // The digest is worth its pass only when a seal made under these checks, in a format known here, can match it.
    const version = seal !== null && seal.checked_with === eventChecksStamp() ? eventsDigestVersionOf(seal.digest) : null;
    const pass = version !== null ? eventsPass(db, path, runId, version) : null;
    const verdict: RunValuesVerdict = pass !== null && pass.digest === seal!.digest ? 'sealed' : 'checked';
    // Checked before rows are read without the pass: a payload SQLite's `->>` cannot parse is refused naming its row.
    if (verdict === 'checked') checkRunEvents(db, path, runId);
    // The pass read the rows of these types on its way (the same rows: one transaction); without it they are sought.
    const sessions = pass?.sessions ?? runSessionIds(db, runId);
    const rows = pass !== null ? pass.rows : readRunEvents(db, runId, PAYLOAD_TYPES);
    return { verdict, records, events: { sessions: new Set(sessions), types: new Set(PAYLOAD_TYPES), rows, ...(pass !== null ? { counts: pass.counts } : {}) } };
  })();
}
