import { spawn } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import { thisProcess } from '../../harness/runs/run-lease.ts';
import { bench, REPO_ROOT, tempDir } from '../support/cli.ts';

const ENV = { PATH: process.env.PATH };
const SMALL = ['--protocol', 'single', '--workload', 'fix-a-bug-small', '--workload', 'regex-with-edge-cases', '--seed-passes', '3'];

/** Rows of the DB (null while its tables are not there yet). */
function count(db: string, sql: string): number | null {
  if (!existsSync(db)) return null;
  try {
    const d = new Database(db, { readonly: true, fileMustExist: true });
    try {
      return (d.prepare(sql).get() as { n: number }).n;
    } finally {
      d.close();
    }
  } catch {
    return null;
  }
}

/** A copy of two workloads, to change between a run and its resume. */
function workloadsCopy(): string {
  const dir = join(tempDir(), 'workloads');
  for (const w of ['fix-a-bug-small', 'regex-with-edge-cases']) cpSync(join(REPO_ROOT, 'workloads', w), join(dir, w), { recursive: true });
  return dir;
}

describe('a run has one writer', () => {
  it('a --resume on a live run exits 2 naming the holder; the live run finishes with exactly its planned reps', { timeout: 600_000 }, async () => {
    const db = join(tempDir(), 'live.db');
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/bench.mjs'), 'run', ...SMALL, '--db-path', db, '--quiet'], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let childErr = '';
    child.stderr.on('data', (b: Buffer) => (childErr += b.toString()));
    const exited = new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
    // Mid-run: one rep committed, others to come. Freeze the live run so the resume meets it in flight
    // (its pid lives, and it stays well inside the lease's stale window).
    while ((count(db, 'SELECT count(*) AS n FROM workload_runs') ?? 0) < 1) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGSTOP');
    let resumed;
    try {
      resumed = await bench(['run', '--resume', db], { env: ENV });
    } finally {
      child.kill('SIGCONT');
    }
    const liveCode = await exited;
    expect(resumed.code, resumed.stderr).toBe(2);
    expect(resumed.stderr).toMatch(new RegExp(`is being written by another bench: host ${hostname()}, pid ${child.pid}, since \\d{4}-\\d\\d-\\d\\dT`));
    // Before: the live run died with "FOREIGN KEY constraint failed" and the DB held 7-8 rows for 6 planned reps.
    expect([0, 1], childErr).toContain(liveCode);
    expect(count(db, 'SELECT count(*) AS n FROM workload_runs')).toBe(6);
    expect(count(db, 'SELECT count(*) AS n FROM (SELECT DISTINCT pass, workload, rep FROM workload_runs)')).toBe(6);
    const report = JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;
    expect(report.status).toBe('complete');
    expect(report.aggregate.workload_runs).toBe(6);
    // The lease is gone with its holder: the finished run is free (and complete).
    expect(count(db, 'SELECT count(*) AS n FROM bench_run_lease')).toBe(0);
  });

  it('a --resume on a run whose live holder hangs inside a write transaction exits 2 naming the holder, not "database is locked"', { timeout: 300_000 }, async () => {
    // An interrupted run to resume (stopped before its first turn).
    const db = join(tempDir(), 'hung.db');
    const controller = new AbortController();
    controller.abort();
    const { main } = await import('../../harness/cli/main.ts');
    const stopped = await main(['run', ...SMALL, '--db-path', db], { out: () => {}, err: () => {}, isTTY: false, progress: () => {}, env: ENV, cwd: REPO_ROOT, interrupt: controller.signal });
    expect(stopped).toBe(1);
    // A live holder (this very process) has the lease and is stuck inside a write transaction, as a bench
    // stopped by SIGSTOP or swapped out mid-commit is: opening the DB to write would wait on its lock.
    const writer = new Database(db);
    try {
      const runId = (writer.prepare('SELECT run_id FROM bench_runs').get() as { run_id: string }).run_id;
      const me = thisProcess();
      const nowUs = Date.now() * 1000;
      writer.prepare('INSERT OR REPLACE INTO bench_run_lease (run_id, token, host, pid, pid_namespace, started_at_us, heartbeat_at_us) VALUES (?, ?, ?, ?, ?, ?, ?)').run(runId, 'hung', me.host, me.pid, me.pidNamespace, nowUs, nowUs);
      writer.exec('BEGIN IMMEDIATE');
      const resumed = await bench(['run', '--resume', db], { env: ENV });
      expect(resumed.code, resumed.stderr).toBe(2);
      expect(resumed.stderr).toMatch(new RegExp(`run ${runId} is being written by another bench: host ${hostname()}, pid ${process.pid}, since \\d{4}-\\d\\d-\\d\\dT`));
      writer.exec('ROLLBACK');
    } finally {
      writer.close();
    }
    // The refused resume took nothing: the lease is still the holder's.
    expect(count(db, "SELECT count(*) AS n FROM bench_run_lease WHERE token = 'hung'")).toBe(1);
  });

  it('the trace DB refuses a second row for one (run, pass, workload, rep)', { timeout: 300_000 }, async () => {
    const db = join(tempDir(), 'one.db');
    expect((await bench(['run', '--protocol', 'single', '--workload', 'fix-a-bug-small', '--seed-passes', '1', '--db-path', db], { env: ENV })).code).not.toBe(2);
    const d = new Database(db);
    try {
      expect(() => d.exec("INSERT INTO workload_runs SELECT id || 'x', run_id, workload, pass, rep, model, signal_strength, session_ids_json, started_at_us, ended_at_us, turns, score, confidence, check_json, assertions_json, error, outcome, error_class FROM workload_runs")).toThrow(/UNIQUE constraint failed/);
      expect(d.pragma('user_version', { simple: true })).toBe(2);
    } finally {
      d.close();
    }
  });

  it('an old DB that already holds two rows for one rep is refused by --resume, naming the rep', { timeout: 300_000 }, async () => {
    const db = join(tempDir(), 'old.db');
    expect((await bench(['run', '--protocol', 'single', '--workload', 'fix-a-bug-small', '--seed-passes', '2', '--max-cost', '0.02', '--db-path', db], { env: ENV })).code).toBe(1);
    const d = new Database(db);
    d.exec('DROP INDEX idx_workload_runs_rep_key');
    d.exec("INSERT INTO workload_runs SELECT id || 'x', run_id, workload, pass, rep, model, signal_strength, session_ids_json, started_at_us, ended_at_us, turns, score, confidence, check_json, assertions_json, error, outcome, error_class FROM workload_runs WHERE rowid = (SELECT min(rowid) FROM workload_runs)");
    d.pragma('user_version = 1');
    d.close();
    const r = await bench(['run', '--resume', db], { env: ENV });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/table workload_runs holds more than one row for 1 rep\(s\): pass single fix-a-bug-small rep 0 \(2 rows/);
  });
});

describe('resume checks what the reps are judged with', () => {
  it('a gutted hidden check refuses --resume (exit 2, listing what changed); --accept-changed resumes and the report says so', { timeout: 600_000 }, async () => {
    const workloads = workloadsCopy();
    const db = join(tempDir(), 'gut.db');
    const first = await bench(['run', ...SMALL, '--workloads-dir', workloads, '--max-cost', '0.05', '--db-path', db], { env: ENV });
    expect(first.code, first.stderr).toBe(1);
    const yaml = join(workloads, 'fix-a-bug-small', 'workload.yaml');
    writeFileSync(yaml, readFileSync(yaml, 'utf8').replace(/^ {4}command: .*$/m, "    command: 'true'"));
    writeFileSync(join(workloads, 'regex-with-edge-cases', 'check', 'extra_note.txt'), 'new file in check/\n');
    // Before: exit 0, reps judged by the old and the gutted check mixed, solved 5/6.
    const refused = await bench(['run', '--resume', db], { env: ENV });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`--resume ${db}: what the run's reps were judged with has changed since it started:`);
    expect(refused.stderr).toContain('fix-a-bug-small workload.yaml changed');
    expect(refused.stderr).toContain('regex-with-edge-cases check/ changed');
    expect(refused.stderr).not.toContain('workspace/ changed');
    expect(refused.stderr).toContain('--accept-changed');
    // Nothing was written: still incomplete, no new rep.
    expect(count(db, "SELECT count(*) AS n FROM bench_runs WHERE status = 'incomplete'")).toBe(1);
    const accepted = await bench(['run', '--resume', db, '--accept-changed'], { env: ENV });
    expect(accepted.code, accepted.stderr).not.toBe(2);
    const report = JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;
    expect(report.status).toBe('complete');
    expect(report.provenance.accepted_changes).toEqual(['fix-a-bug-small workload.yaml changed', 'regex-with-edge-cases check/ changed']);
    expect(report.warnings.some((w) => w.startsWith('resumed with --accept-changed') && w.includes('fix-a-bug-small workload.yaml changed'))).toBe(true);
    // --accept-changed alone (no --resume) is a setup error.
    const alone = await bench(['run', ...SMALL, '--accept-changed', '--db-path', join(tempDir(), 'x.db')], { env: ENV });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--accept-changed needs --resume');
  });
});
