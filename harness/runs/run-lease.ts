import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { isoFromUs } from '../../runtime/core/clock.ts';
import { SetupError } from '../errors.ts';

/**
 * One writer per run: a lease row in the run's trace DB, kept alive by a heartbeat. A process that dies
 * stops beating, so its lease lapses however it died and wherever it ran; on the same machine (same
 * boot and pid namespace) a holder whose pid is gone is taken over at once.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS bench_run_lease (
  run_id TEXT PRIMARY KEY,
  token TEXT NOT NULL,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  pid_namespace TEXT,
  started_at_us INTEGER NOT NULL,
  heartbeat_at_us INTEGER NOT NULL
);
`;

/** How often the holder writes its heartbeat. */
export const LEASE_HEARTBEAT_MS = 5_000;
/** A lease whose last heartbeat is older than this has lapsed: its holder is dead or cut off, and the run may be taken over. */
export const LEASE_STALE_US = 30_000_000;

/** Who holds (or asks for) a run's lease. */
export interface LeaseHolder {
  host: string;
  pid: number;
  /** Boot id and pid namespace: equal only when `pid` names the same process table; null where unknown. */
  pidNamespace: string | null;
}

/** A lease row as stored. */
export interface LeaseRow {
  run_id: string;
  token: string;
  host: string;
  pid: number;
  pid_namespace: string | null;
  started_at_us: number;
  heartbeat_at_us: number;
}

/** This process as a lease holder. */
export function thisProcess(): LeaseHolder {
  let pidNamespace: string | null;
  try {
    pidNamespace = `${readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}/${readlinkSync('/proc/self/ns/pid')}`;
  } catch {
    pidNamespace = null; // not Linux: only the heartbeat tells a dead holder
  }
  return { host: hostname(), pid: process.pid, pidNamespace };
}

/** Whether `pid` is a live process here (EPERM: it lives, under another user). */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === 'EPERM';
  }
}

/** What `takeRunLease` needs besides the DB. */
export interface LeaseOptions {
  /** The DB's path, for messages. */
  dbPath: string;
  /** Now, in UTC microseconds. */
  nowUs: () => number;
  holder?: LeaseHolder;
  staleUs?: number;
  heartbeatMs?: number;
  /** Whether a pid of this machine lives (injected by tests). */
  isAlive?: (pid: number) => boolean;
}

/** A held lease: the heartbeat runs until `release`. */
export interface RunLease {
  /** The holder whose lapsed lease this one replaced, if any (for a warning). */
  readonly tookOverFrom: LeaseRow | null;
  /** Throws (exit 2) when another process has taken the run over since: this one must not write again. */
  assertHeld(): void;
  /** Stops the heartbeat and removes the lease (a finished or failed run leaves the DB free). */
  release(): void;
}

/** Why a lease row does not block a new holder, or null when it does. */
function lapsed(row: LeaseRow, me: LeaseHolder, nowUs: number, staleUs: number, isAlive: (pid: number) => boolean): string | null {
  if (nowUs - row.heartbeat_at_us > staleUs) return `no heartbeat for ${Math.round((nowUs - row.heartbeat_at_us) / 1e6)} s`;
  if (row.pid_namespace !== null && row.pid_namespace === me.pidNamespace && row.host === me.host && !isAlive(row.pid)) return `pid ${row.pid} is gone`;
  return null;
}

/** The refusal naming who holds the run and since when. */
function heldError(dbPath: string, row: LeaseRow, nowUs: number, staleUs: number): SetupError {
  const ago = Math.max(0, Math.round((nowUs - row.heartbeat_at_us) / 1e6));
  return new SetupError(
    `${dbPath}: run ${row.run_id} is being written by another bench: host ${row.host}, pid ${row.pid}, since ${isoFromUs(row.started_at_us)} (last heartbeat ${ago} s ago). ` +
      `Wait for it to finish, or stop it; a holder that dies is taken over at once on its own machine, elsewhere ${Math.round(staleUs / 1e6)} s after its last heartbeat`,
  );
}

/**
 * Refuses, before any write, a run whose lease a live holder has: read from a read-only connection, which
 * a WAL writer never blocks. Opening the DB to write waits on the writer's lock instead, and a holder that
 * hangs inside a transaction (stopped, swapped out) would then end in "database is locked" naming nobody.
 * `takeRunLease` still decides, in its own transaction: this only answers early and by name.
 */
export function refuseIfRunHeld(dbPath: string, runId: string, options: Omit<LeaseOptions, 'dbPath'>): void {
  const db = new BetterSqlite3(dbPath, { readonly: true, fileMustExist: true });
  try {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'bench_run_lease'").get();
    const row = table ? (db.prepare('SELECT * FROM bench_run_lease WHERE run_id = ?').get(runId) as LeaseRow | undefined) : undefined;
    if (!row) return;
    const now = options.nowUs();
    const staleUs = options.staleUs ?? LEASE_STALE_US;
    if (lapsed(row, options.holder ?? thisProcess(), now, staleUs, options.isAlive ?? pidAlive) === null) throw heldError(dbPath, row, now, staleUs);
  } finally {
    db.close();
  }
}

/**
 * Takes the run's lease in `db` (an immediate transaction, so two takers cannot both win), or throws
 * a SetupError naming the live holder's host, pid and start. A lapsed lease is taken over.
 */
export function takeRunLease(db: Database, runId: string, options: LeaseOptions): RunLease {
  const me = options.holder ?? thisProcess();
  const staleUs = options.staleUs ?? LEASE_STALE_US;
  const isAlive = options.isAlive ?? pidAlive;
  const token = randomUUID();
  db.exec(SCHEMA);
  const tookOverFrom = db
    .transaction(() => {
      const now = options.nowUs();
      const row = db.prepare('SELECT * FROM bench_run_lease WHERE run_id = ?').get(runId) as LeaseRow | undefined;
      if (row && lapsed(row, me, now, staleUs, isAlive) === null) throw heldError(options.dbPath, row, now, staleUs);
      db.prepare('INSERT OR REPLACE INTO bench_run_lease (run_id, token, host, pid, pid_namespace, started_at_us, heartbeat_at_us) VALUES (?, ?, ?, ?, ?, ?, ?)').run(runId, token, me.host, me.pid, me.pidNamespace, now, now);
      return row ?? null;
    })
    .immediate();
  const beat = db.prepare('UPDATE bench_run_lease SET heartbeat_at_us = ? WHERE run_id = ? AND token = ?');
  const timer = setInterval(() => {
    try {
      beat.run(options.nowUs(), runId, token);
    } catch {
      // A busy DB skips one beat; the next one (well inside the stale window) catches up.
    }
  }, options.heartbeatMs ?? LEASE_HEARTBEAT_MS);
  timer.unref();
  let released = false;
  return {
    tookOverFrom,
    assertHeld() {
      const row = db.prepare('SELECT * FROM bench_run_lease WHERE run_id = ?').get(runId) as LeaseRow | undefined;
      if (row?.token === token) return;
      throw new SetupError(
        `${options.dbPath}: run ${runId} was taken over by another bench${row ? ` (host ${row.host}, pid ${row.pid}, since ${isoFromUs(row.started_at_us)})` : ''} after this one's lease lapsed; this process stops writing. Let the other finish`,
      );
    },
    release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      if (db.open) db.prepare('DELETE FROM bench_run_lease WHERE run_id = ? AND token = ?').run(runId, token);
    },
  };
}
