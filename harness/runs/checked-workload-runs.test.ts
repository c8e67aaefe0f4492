import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkRunRows } from './check-run-values.ts';
import { RunStore, WORKLOAD_RUNS_SQL, type WorkloadRunRecord } from './run-store.ts';

/** A rep of run `run` (two runs share the DB: a check returns one run's records). */
function rep(run: string, k: number, score: number): WorkloadRunRecord {
  return {
    id: `${run}-w${k}`,
    run_id: run,
    workload: `w${3 - k}`,
    pass: `p${k % 2}`,
    rep: k,
    model: 'm',
    signal_strength: 'high',
    session_ids: [`s${k}`],
    started_at_us: 1,
    ended_at_us: 2,
    turns: 3,
    score,
    confidence: 1,
    outcome: 'solved',
    check: k === 0 ? null : { passed: true, exit_code: 0, timed_out: false, sandbox: 'none', output_tail: 'ok' },
    assertions: [],
    error: null,
    error_class: null,
  };
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A trace DB file holding runs r and other, three reps each. */
function traceDb(): { path: string; db: Database.Database; runs: RunStore } {
  const dir = mkdtempSync(join(tmpdir(), 'checked-runs-'));
  dirs.push(dir);
  const path = join(dir, 'trace.db');
  const db = new Database(path);
  const runs = new RunStore(db);
  for (const run of ['r', 'other']) {
    db.prepare("INSERT INTO bench_runs (run_id, created_at_us, provenance_json) VALUES (?, 1, '{}')").run(run);
    for (const k of [0, 1, 2]) runs.saveWorkloadRun(rep(run, k, 0.5));
  }
  return { path, db, runs };
}

/** How many times the report's own read of a run's rows is prepared while `f` runs. */
function readsOf(db: Database.Database, f: () => void): number {
  const prepare = vi.spyOn(db, 'prepare');
  try {
    f();
    return prepare.mock.calls.filter(([sql]) => sql === WORKLOAD_RUNS_SQL).length;
  } finally {
    prepare.mockRestore();
  }
}

describe("a run's checked workload_runs rows", () => {
  it('are returned by the check as workloadRuns reads them, in its order, read once', () => {
    const { db, runs } = traceDb();
    const fresh = runs.workloadRuns('r');
    expect(fresh.map((r) => r.id)).toEqual(['r-w2', 'r-w0', 'r-w1']);
    let checked: WorkloadRunRecord[] = [];
    expect(readsOf(db, () => (checked = checkRunRows(db, 'db', 'r')))).toBe(1);
    expect(checked).toEqual(fresh);
  });

  it("are of that run only, and a check of every run returns none", () => {
    const { db, runs } = traceDb();
    expect(checkRunRows(db, 'db', 'other')).toEqual(runs.workloadRuns('other'));
    expect(checkRunRows(db, 'db', 'other').map((r) => r.run_id)).toEqual(['other', 'other', 'other']);
    expect(checkRunRows(db, 'db', null)).toBeUndefined();
  });

  it('hold what the DB holds when checked (a later write is read by the next check)', () => {
    const { db } = traceDb();
    expect(checkRunRows(db, 'db', 'r').find((r) => r.id === 'r-w1')!.score).toBe(0.5);
    db.prepare("UPDATE workload_runs SET score = 0.25 WHERE id = 'r-w1'").run();
    expect(checkRunRows(db, 'db', 'r').find((r) => r.id === 'r-w1')!.score).toBe(0.25);
  });
});
