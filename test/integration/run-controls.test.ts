import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import { bench, REPO_ROOT, tempDir } from '../support/cli.ts';
import { anthropicError, startFakeAnthropic, type LoopbackServer } from '../support/loopback/index.ts';
import { workRoot } from '../../harness/runs/run-workdir.ts';

const ENV = { PATH: process.env.PATH };
const read = (db: string) => JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;

describe('--max-cost and --concurrency', () => {
  it('--max-cost stops before spend passes the bound: report incomplete, exit 1', { timeout: 300_000 }, async () => {
    const db = join(tempDir(), 'cap.db');
    const r = await bench(['run', '--include-marginal', '--seed-passes', '3', '--max-cost', '0.03', '--db-path', db], { env: ENV });
    expect(r.code).toBe(1);
    const report = read(db);
    expect(report.status).toBe('incomplete');
    expect(report.exit_code).toBe(1);
    expect(new Decimal(report.aggregate.savings.actual_repriced_usd).lte('0.03')).toBe(true);
    expect(report.workloads.flatMap((w) => w.reps).some((rep) => rep.error?.startsWith('stopped: --max-cost 0.03'))).toBe(true);
    // Fewer reps than asked for: the run stopped scheduling work.
    expect(report.aggregate.workload_runs).toBeLessThan(9);
  });

  it('--concurrency 3 gives the same per-workload numbers as a sequential run', { timeout: 300_000 }, async () => {
    const a = join(tempDir(), 'seq.db');
    const b = join(tempDir(), 'par.db');
    await bench(['run', '--include-marginal', '--seed-passes', '2', '--db-path', a], { env: ENV });
    await bench(['run', '--include-marginal', '--seed-passes', '2', '--concurrency', '3', '--db-path', b], { env: ENV });
    const pick = (r: BenchReport) => r.workloads.map((w) => ({ w: w.workload, s: w.savings, q: w.quality_mean, llm: w.llm_calls, tool: w.tool_calls }));
    expect(pick(read(b))).toEqual(pick(read(a)));
    expect(read(b).aggregate.savings).toEqual(read(a).aggregate.savings);
  });
});

describe('Ctrl-C', () => {
  it('an interrupted run stops before the next turn, writes its report and says it is incomplete', { timeout: 300_000 }, async () => {
    const controller = new AbortController();
    controller.abort();
    const db = join(tempDir(), 'int.db');
    const { main } = await import('../../harness/cli/main.ts');
    const err: string[] = [];
    const code = await main(['run', '--include-marginal', '--db-path', db], {
      out: () => {},
      err: (s) => err.push(s),
      isTTY: false,
      progress: () => {},
      env: ENV,
      cwd: process.cwd(),
      interrupt: controller.signal,
    });
    expect(code).toBe(1);
    const report = read(db);
    expect(report.status).toBe('incomplete');
    expect(report.workloads.flatMap((w) => w.reps).every((r) => r.error?.startsWith('stopped: interrupted'))).toBe(true);
  });
});

describe('Ctrl-C during a provider call that never answers', () => {
  let server: LoopbackServer | null = null;
  it('aborts the call in flight, writes a partial report marked incomplete within 2 s, and leaves no temp workspace', { timeout: 300_000 }, async () => {
    server = await startFakeAnthropic(() => ({ kind: 'hang' }));
    const controller = new AbortController();
    const db = join(tempDir(), 'hang.db');
    const { main } = await import('../../harness/cli/main.ts');
    const running = main(['run', '--provider', 'anthropic', '--base-url', server.baseURL, '--workload', 'fix-a-bug-small', '--db-path', db], {
      out: () => {},
      err: () => {},
      isTTY: false,
      progress: () => {},
      env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: 'sk-test-not-a-key' },
      cwd: process.cwd(),
      interrupt: controller.signal,
    });
    await server.received(1);
    const t0 = Date.now();
    controller.abort();
    const code = await running;
    const elapsed = Date.now() - t0;
    await server.close();
    expect(elapsed).toBeLessThan(2000);
    expect(code).toBe(1);
    const report = read(db);
    expect(report.status).toBe('incomplete');
    expect(report.workloads[0]!.reps[0]!.error).toBe('stopped: interrupted during turn 1');
    const left = existsSync(workRoot()) ? readdirSync(workRoot()).filter((d) => d.startsWith(`${report.provenance.run_id}.`)) : [];
    expect(left).toEqual([]);
  });
});

// SIGTERM is what a CI timeout, kill or a container stop sends: it must act as Ctrl-C does.
describe('Ctrl-C (SIGINT) and SIGTERM as real signals to a bench process', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('%s during a provider call that never answers: the process exits 1 within 2 s and writes the partial report', async (signal) => {
    const server = await startFakeAnthropic(() => ({ kind: 'hang' }));
    try {
      const db = join(tempDir(), `${signal}.db`);
      const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/bench.mjs'), 'run', '--provider', 'anthropic', '--base-url', server.baseURL, '--workload', 'fix-a-bug-small', '--db-path', db], {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: 'sk-test-not-a-key' },
        stdio: 'ignore',
      });
      const exited = new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
      await server.received(1);
      const t0 = Date.now();
      child.kill(signal);
      const code = await exited;
      expect(Date.now() - t0).toBeLessThan(2000);
      expect(code).toBe(1);
      expect(read(db).status).toBe('incomplete');
    } finally {
      await server.close();
    }
  }, 300_000);
});

describe('--resume --retry-errors', () => {
  it('runs again only the reps that ended in a provider error; the others are kept as they were', { timeout: 300_000 }, async () => {
    const server = await startFakeAnthropic();
    try {
      // The first call of the run fails for good (400 is not retried): rep 0 ends in a provider error.
      server.enqueue(anthropicError(400, 'invalid_request_error', 'simulated outage'));
      const db = join(tempDir(), 'errs.db');
      const env = { PATH: process.env.PATH, ANTHROPIC_API_KEY: 'sk-test-not-a-key' };
      const args = ['run', '--provider', 'anthropic', '--base-url', server.baseURL, '--workload', 'write-a-doc-from-notes', '--seed-passes', '2', '--db-path', db];
      const first = await bench(args, { env });
      expect(first.code, first.stderr).not.toBe(2);
      const before = read(db).workloads[0]!.reps;
      expect(before.map((r) => r.error !== null)).toEqual([true, false]);
      const kept = before[1]!;
      const again = await bench(['run', '--resume', db, '--retry-errors', '--base-url', server.baseURL], { env });
      expect(again.code, again.stderr).not.toBe(2);
      const after = read(db).workloads[0]!.reps;
      expect(after.map((r) => r.error)).toEqual([null, null]);
      // Rep 1 was not run again: same sessions, same times.
      expect(after[1]!.session_ids).toEqual(kept.session_ids);
      expect(after[1]!.started_at_us).toBe(kept.started_at_us);
      expect(after[0]!.session_ids).not.toEqual(before[0]!.session_ids);
    } finally {
      await server.close();
    }
  });
});

/** A report without what legitimately differs between two runs of the same work: ids, timestamps, paths, check timings, commit. */
function comparable(r: BenchReport): unknown {
  const drop = new Set(['run_id', 'started_at', 'ended_at', 'db_path', 'patterns_db_path', 'session_ids', 'started_at_us', 'ended_at_us', 'metis_commit_sha', 'metis_branch', 'metis_dirty', 'output_tail', 'turn_id', 'duration_ms']);
  const strip = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(strip) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).filter(([k]) => !drop.has(k)).map(([k, x]) => [k, strip(x)])) : v;
  return strip(r);
}

const A3_SMALL = ['--protocol', 'a3', '--workload', 'fix-a-bug-small', '--workload', 'regex-with-edge-cases', '--seed-passes', '2'];

/** Committed reps and sessions with events in a run's DB (read while the run writes it). */
function progressOf(db: string): { reps: number; sessions: number } | null {
  if (!existsSync(db)) return null;
  try {
    const d = new Database(db, { readonly: true, fileMustExist: true });
    try {
      const reps = (d.prepare('SELECT count(*) AS n FROM workload_runs').get() as { n: number }).n;
      const sessions = (d.prepare('SELECT count(DISTINCT session_id) AS n FROM events').get() as { n: number }).n;
      return { reps, sessions };
    } finally {
      d.close();
    }
  } catch {
    return null; // tables not there yet
  }
}

/** Starts `bench run` in a child process and SIGKILLs it once `when` holds. */
async function runAndKill(db: string, when: (p: { reps: number; sessions: number }) => boolean): Promise<void> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/bench.mjs'), 'run', ...A3_SMALL, '--db-path', db, '--quiet'], { cwd: REPO_ROOT, stdio: 'ignore' });
  const exited = new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
  let done = false;
  void exited.then(() => (done = true));
  while (!done) {
    const p = progressOf(db);
    if (p && when(p)) {
      child.kill('SIGKILL');
      break;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  await exited;
}

describe('a killed run reads as interrupted, and --resume finishes it with the numbers of an uninterrupted run', () => {
  let reference: BenchReport | null = null;
  const referenceReport = async () => {
    if (!reference) {
      const db = join(tempDir(), 'ref.db');
      await bench(['run', ...A3_SMALL, '--db-path', db], { env: ENV });
      reference = read(db);
    }
    return reference;
  };

  // Pass A holds 4 reps (2 workloads x 2); B 4 more; C 4 more; R 4 more.
  it.each([
    ['inside the first rep', (p: { reps: number; sessions: number }) => p.sessions >= 1 && p.reps === 0],
    ['between passes A and B', (p: { reps: number; sessions: number }) => p.reps >= 4],
    ['inside a rep of Pass C', (p: { reps: number; sessions: number }) => p.reps >= 8 && p.sessions > p.reps],
    // Pass R (the random arm, outside the job plan) runs after C's 4 reps: a resume runs it again whole.
    ['inside Pass R, after its first rep', (p: { reps: number; sessions: number }) => p.reps >= 13 && p.sessions > p.reps],
  ])('SIGKILL %s', { timeout: 600_000 }, async (_label, when) => {
    const ref = await referenceReport();
    const db = join(tempDir(), 'killed.db');
    await runAndKill(db, when);
    const analyzed = await bench(['analyze', '--skip-execute', '--db-path', db], { env: ENV });
    // A killed run is never complete; if the kill came too late to cut anything, the test says so.
    expect(analyzed.stdout).toMatch(/status:\s+interrupted/);
    expect(analyzed.code).toBe(1);
    expect(analyzed.stderr).toContain(`bench run --resume ${db}`);
    const resumed = await bench(['run', '--resume', db], { env: ENV });
    expect(resumed.code, resumed.stderr).not.toBe(2);
    const report = read(db);
    expect(report.status).toBe('complete');
    expect(comparable(report)).toEqual(comparable(ref));
    // The checkpoints of a finished run are gone.
    expect(readdirSync(join(db, '..')).filter((f) => f.includes('.ckpt-'))).toEqual([]);
  });

  it('--resume refuses a complete run and a DB that is not there (exit 2, naming the fix)', { timeout: 300_000 }, async () => {
    const db = join(tempDir(), 'done.db');
    await bench(['run', '--workload', 'fix-a-bug-small', '--db-path', db], { env: ENV });
    const again = await bench(['run', '--resume', db], { env: ENV });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('is complete; nothing to resume');
    const missing = await bench(['run', '--resume', join(tempDir(), 'nope.db')], { env: ENV });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such trace DB');
    const retry = await bench(['run', '--retry-errors', '--workload', 'fix-a-bug-small', '--db-path', join(tempDir(), 'r.db')], { env: ENV });
    expect(retry.code).toBe(2);
    expect(retry.stderr).toContain('--retry-errors needs --resume');
  });

  it('--max-cost then --resume: the stopped reps run again and the run completes as if never stopped', { timeout: 600_000 }, async () => {
    const ref = await referenceReport();
    const db = join(tempDir(), 'capped.db');
    const capped = await bench(['run', ...A3_SMALL, '--max-cost', '0.05', '--db-path', db], { env: ENV });
    expect(capped.code).toBe(1);
    expect(read(db).status).toBe('incomplete');
    const resumed = await bench(['run', '--resume', db], { env: ENV });
    expect(resumed.code, resumed.stderr).not.toBe(2);
    expect(comparable(read(db))).toEqual(comparable(ref));
  });

  it('--cache on is part of the run: --resume keeps it, and the cache figures match an uninterrupted cache-on run', { timeout: 600_000 }, async () => {
    const refDb = join(tempDir(), 'ref-cache.db');
    await bench(['run', ...A3_SMALL, '--cache', 'on', '--db-path', refDb], { env: ENV });
    const ref = read(refDb);
    expect(ref.provenance.semantic_cache).toBe(true);
    const db = join(tempDir(), 'capped-cache.db');
    expect((await bench(['run', ...A3_SMALL, '--cache', 'on', '--max-cost', '0.05', '--db-path', db], { env: ENV })).code).toBe(1);
    const resumed = await bench(['run', '--resume', db], { env: ENV });
    expect(resumed.code, resumed.stderr).not.toBe(2);
    const report = read(db);
    // Before the fix the resumed reps ran without the cache: fewer cache.miss events than model calls.
    expect(report.cache.semantic).toEqual(ref.cache.semantic);
    expect(report.cache.semantic!.misses).toBe(report.cache.semantic!.llm_calls);
    expect(comparable(report)).toEqual(comparable(ref));
  });
});
