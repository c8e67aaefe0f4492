import type { Database } from 'better-sqlite3';
import type { RunJob } from '../jobs/shard.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS bench_run_jobs (
  run_id TEXT NOT NULL,
  job_index INTEGER NOT NULL,
  pass TEXT NOT NULL,
  workload TEXT NOT NULL,
  rep INTEGER NOT NULL,
  in_this_db INTEGER NOT NULL,
  PRIMARY KEY (run_id, job_index)
);
`;

/** What a run's DB was asked to do and what it holds: the planned jobs, the committed reps, the status as stored. */
export class RunJobs {
  constructor(private readonly db: Database) {}

  /** Creates the plan table (run writers only; readers check `hasPlan`). */
  ensure(): void {
    this.db.exec(SCHEMA);
  }

  /** Stores every job of the whole run, flagging those this DB is responsible for (its shard of its passes); idempotent. */
  savePlan(runId: string, all: readonly RunJob[], mine: readonly RunJob[]): void {
    const own = new Set(mine.map((j) => j.index));
    const ins = this.db.prepare('INSERT OR IGNORE INTO bench_run_jobs (run_id, job_index, pass, workload, rep, in_this_db) VALUES (?, ?, ?, ?, ?, ?)');
    this.db.transaction(() => {
      for (const j of all) ins.run(runId, j.index, j.pass, j.workload, j.rep, own.has(j.index) ? 1 : 0);
    })();
  }

  /** Every job of the run in one-machine order, with whether this DB runs it; null for a DB written before plans were stored. */
  plan(runId: string): (RunJob & { mine: boolean })[] | null {
    if (!this.hasTable('bench_run_jobs')) return null;
    const rows = this.db.prepare('SELECT job_index, pass, workload, rep, in_this_db FROM bench_run_jobs WHERE run_id = ? ORDER BY job_index').all(runId) as { job_index: number; pass: string; workload: string; rep: number; in_this_db: number }[];
    return rows.length ? rows.map((r) => ({ index: r.job_index, pass: r.pass, workload: r.workload, rep: r.rep, mine: r.in_this_db === 1 })) : null;
  }

  /** The status column as written: `running` until the run is finalised. */
  storedStatus(runId: string): string | null {
    const row = this.db.prepare('SELECT status FROM bench_runs WHERE run_id = ?').get(runId) as { status: string } | undefined;
    return row?.status ?? null;
  }

  /** Marks a run as in progress; only finalisation replaces it, so a killed run never reads as complete. */
  markRunning(runId: string): void {
    this.db.prepare("UPDATE bench_runs SET status = 'running' WHERE run_id = ?").run(runId);
  }

  /** Committed reps as "pass NUL workload NUL rep" keys, with whether each ended in a provider error. */
  committed(runId: string): Map<string, { id: string; stopped: boolean; providerError: boolean; sessionIds: string[] }> {
    const rows = this.db.prepare('SELECT id, pass, workload, rep, error, session_ids_json FROM workload_runs WHERE run_id = ?').all(runId) as { id: string; pass: string; workload: string; rep: number; error: string | null; session_ids_json: string }[];
    return new Map(
      rows.map((r) => [
        `${r.pass}\u0000${r.workload}\u0000${r.rep}`,
        {
          id: r.id,
          // Cut short by --max-cost or Ctrl-C: resume runs it again.
          stopped: r.error !== null && r.error.startsWith('stopped:'),
          // Ended in an error of the model call (the rep's `error` names the turn and the provider's message).
          providerError: r.error !== null && !r.error.startsWith('stopped:'),
          sessionIds: JSON.parse(r.session_ids_json) as string[],
        },
      ]),
    );
  }

  /**
   * Rolls the trace back to its committed reps: removes `dropReps` (reps to run again: stopped early,
   * or provider errors under --retry-errors) and every event and session no committed rep owns — a
   * half-written rep. Returns the session ids removed.
   */
  rollback(runId: string, dropReps: readonly string[]): string[] {
    return this.db.transaction(() => {
      const delRun = this.db.prepare('DELETE FROM workload_runs WHERE id = ? AND run_id = ?');
      for (const id of dropReps) delRun.run(id, runId);
      const owned = new Set<string>();
      for (const r of this.db.prepare('SELECT session_ids_json FROM workload_runs').all() as { session_ids_json: string }[]) for (const s of JSON.parse(r.session_ids_json) as string[]) owned.add(s);
      const all = (this.db.prepare('SELECT DISTINCT session_id AS id FROM events UNION SELECT id FROM sessions').all() as { id: string }[]).map((r) => r.id);
      const orphans = all.filter((s) => !owned.has(s));
      const delEvents = this.db.prepare('DELETE FROM events WHERE session_id = ?');
      const delSession = this.db.prepare('DELETE FROM sessions WHERE id = ?');
      for (const s of orphans) {
        delEvents.run(s);
        delSession.run(s);
      }
      return orphans;
    })();
  }

  private hasTable(name: string): boolean {
    return this.db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?").get(name) !== undefined;
  }
}
