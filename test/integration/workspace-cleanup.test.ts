import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, type Dirent } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTree } from '../../runtime/sandbox/index.ts';
import { diskUsage } from '../../runtime/sandbox/resource-limits.ts';
import { makeDeepTree } from '../../runtime/sandbox/test-support/deep-tree.ts';
import { workRoot } from '../../harness/runs/run-workdir.ts';
import type { BenchReport } from '../../schemas/types/report.ts';
import { REPO_ROOT } from '../support/cli.ts';

// Issue 29: a deep tree made by a run_shell step killed the run at cleanup (rmSync: ENAMETOOLONG) and
// every later run on the same TMPDIR at start-up; hard links multiplied the staging copy's disk use.
const base = mkdtempSync('/var/tmp/metis-cleanup-');
afterAll(() => removeTree(base));

/** A one-turn workload whose sim plan runs these shell commands; with `check`, a hidden check runs after. */
function workload(dir: string, name: string, commands: string[], check?: string): void {
  const w = join(dir, name);
  mkdirSync(join(w, 'workspace'), { recursive: true });
  writeFileSync(join(w, 'workspace', 'app.txt'), 'hello\n');
  const calls = commands.map((c) => `              - tool: run_shell\n                input: { command: ${JSON.stringify(c)}, timeout_seconds: 300 }\n`).join('');
  const plan = (id: string, competent: boolean) => `      - id: ${id}\n        competent: ${competent}\n        steps:\n          - tool_calls:\n${calls}        final: "Done."\n`;
  writeFileSync(join(w, 'sim.yaml'), `version: 1\nturns:\n  - difficulty: 0.1\n    plans:\n${plan('go', true)}${plan('go-again', false)}`);
  const evaluate = check ? `evaluate:\n  check:\n    command: ${JSON.stringify(check)}\n    timeout_seconds: 120\n` : '';
  if (check) {
    mkdirSync(join(w, 'check'));
    writeFileSync(join(w, 'check', 'ok.txt'), 'ok\n');
  }
  writeFileSync(join(w, 'workload.yaml'), `name: ${name}\ndescription: a probe\nsuite_version: 1\nsignal_strength: marginal\nturns:\n  - prompt: "go"\n${evaluate}`);
}

/** `bench run` as its own process with its own TMPDIR, as a user runs it; `sample` is called every 100 ms while it runs. */
async function benchRun(args: string[], tmp: string, sample?: () => void): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/bench.mjs'), 'run', '--provider', 'sim', '--quiet', ...args], { cwd: REPO_ROOT, env: { PATH: process.env.PATH, TMPDIR: tmp }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const timer = sample ? setInterval(sample, 100) : undefined;
  const code = await new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
  clearInterval(timer);
  return { code, stderr };
}

/** Whether this process can mark a file immutable where the test writes (root, on a file system that has the attribute). */
function canMakeImmutable(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = join(base, 'immutable-probe');
  writeFileSync(probe, '');
  const ok = spawnSync('chattr', ['+i', probe]).status === 0;
  if (ok) spawnSync('chattr', ['-i', probe]);
  return ok;
}

/** The first file named `name` at most `depth` levels under `dir`, or null. */
function findFile(dir: string, name: string, depth: number): string | null {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return null;
  }
  for (const e of entries) {
    if (e.name === name && e.isFile()) return join(dir, name);
    const below = depth > 0 && e.isDirectory() ? findFile(join(dir, e.name), name, depth - 1) : null;
    if (below) return below;
  }
  return null;
}

const report = (db: string) => JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;
const rep = (r: BenchReport, name: string) => r.workloads.find((w) => w.workload === name)!.reps[0]!;

describe('workspace cleanup and bounds across runs', () => {
  it('a 3,000-deep tree of 200-character names ends that rep resource_limit, the run finishes, and a later run on the same TMPDIR starts and completes', { timeout: 600_000 }, async () => {
    const dir = mkdtempSync(join(base, 'workloads-'));
    const tmp = mkdtempSync(join(base, 'tmp-'));
    // Python, not sh: dash's cd gives up once $PWD passes PATH_MAX (about 20 levels of these names).
    workload(dir, 'deep', [`python3 -c "import os; n='d'*200; [(os.mkdir(n), os.chdir(n)) for _ in range(3000)]; print('made')"`]);
    workload(dir, 'calm', ['echo ok > ok.txt']);
    const db = join(base, 'deep.db');
    const first = await benchRun(['--workloads-dir', dir, '--workload', 'deep', '--workload', 'calm', '--db-path', db], tmp);
    expect(first.code, first.stderr).not.toBe(2);
    const r = report(db);
    expect(r.status).toBe('complete');
    expect(rep(r, 'deep').error_class).toBe('resource_limit');
    expect(rep(r, 'deep').error).toMatch(/resource limit workspace_max_depth \(256\) exceeded/);
    expect(rep(r, 'calm').error).toBeNull();
    expect(readdirSync(workRoot(tmp))).toEqual([]);

    // A run killed with SIGKILL left its deep tree behind: the next run sweeps it with a warning on stderr and completes.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    const left = join(workRoot(tmp), `run_OLD.${dead}`, 'metis-bench-x', 'workspace');
    mkdirSync(left, { recursive: true });
    makeDeepTree(left, 3000, 200);
    const db2 = join(base, 'after.db');
    const second = await benchRun(['--workloads-dir', dir, '--workload', 'calm', '--db-path', db2], tmp);
    expect(second.code, second.stderr).not.toBe(2);
    const r2 = report(db2);
    expect(r2.status).toBe('complete');
    // Said on stderr, not in this run's report: the leftover is another run's.
    expect(second.stderr).toContain(`run_OLD.${dead}, left by a run whose process (pid ${dead}) is gone`);
    expect(r2.warnings.some((w) => w.includes('run_OLD'))).toBe(false);
    expect(readdirSync(workRoot(tmp))).toEqual([]);
  });

  it("200 hard links to 2 MiB: the hidden check's staging copy writes them as links, so TMPDIR's peak growth stays below the disk bound", { timeout: 600_000 }, async () => {
    const dir = mkdtempSync(join(base, 'workloads-'));
    const tmp = mkdtempSync(join(base, 'tmp-'));
    workload(dir, 'links', ['head -c 2097152 /dev/urandom > data.bin; i=0; while [ $i -lt 200 ]; do ln data.bin l$i.bin; i=$((i+1)); done; echo linked'], 'sleep 2; test -f .bench-check/ok.txt');
    const db = join(base, 'links.db');
    let peak = 0;
    const sample = () => {
      // Distinct inodes' allocated blocks: what TMPDIR really takes on disk.
      if (existsSync(tmp)) peak = Math.max(peak, diskUsage([tmp]).allocated);
    };
    const run = await benchRun(['--workloads-dir', dir, '--workload', 'links', '--db-path', db, '--limit', 'workspace_max_bytes=16777216'], tmp, sample);
    expect(run.code, run.stderr).not.toBe(2);
    const r = rep(report(db), 'links');
    // The check ran on the staged copy and passed: the copy was made, within the bound.
    expect(r.check?.passed, JSON.stringify(r.check)).toBe(true);
    expect(peak).toBeGreaterThan(2 * 1024 * 1024);
    expect(peak).toBeLessThan(16 * 1024 * 1024);
  });

  // A real failure, not an injected remover: as root, a file marked immutable (chattr +i) cannot be unlinked
  // by anyone, and the sandboxed agent cannot mark one itself (no capability), so the test marks it from
  // outside while the rep waits. Skipped where that is impossible (not root, or a file system without it).
  it.skipIf(!canMakeImmutable())("a workspace that really cannot be removed ends that rep internal_error naming the dir, and the run goes on", { timeout: 600_000 }, async () => {
    const dir = mkdtempSync(join(base, 'workloads-'));
    const tmp = mkdtempSync(join(base, 'tmp-'));
    // The step says it is waiting, then waits (at most 60 s) for the test to mark app.txt immutable.
    workload(dir, 'stuck', ['touch waiting; i=0; while [ ! -e go ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; echo waited']);
    workload(dir, 'calm', ['echo ok > ok.txt']);
    const db = join(base, 'stuck.db');
    let marked: string | null = null;
    const sample = () => {
      if (marked) return;
      const waiting = findFile(workRoot(tmp), 'waiting', 4);
      if (!waiting) return;
      marked = join(dirname(waiting), 'app.txt');
      spawnSync('chattr', ['+i', marked]);
      writeFileSync(join(dirname(waiting), 'go'), '');
    };
    try {
      const run = await benchRun(['--workloads-dir', dir, '--workload', 'stuck', '--workload', 'calm', '--db-path', db], tmp, sample);
      expect(marked, 'the step never said it was waiting').not.toBeNull();
      expect(run.code, run.stderr).not.toBe(2);
      const r = report(db);
      expect(r.status).toBe('complete');
      expect(rep(r, 'stuck').error_class).toBe('internal_error');
      expect(rep(r, 'stuck').error).toMatch(/the rep's workspace copy \S+ could not be removed: .*EPERM/);
      expect(rep(r, 'calm').error).toBeNull();
      // The run's own work dir could not go either: a warning, and the next run's sweep tries again.
      expect(r.warnings.some((w) => w.startsWith("could not remove this run's work dir")), JSON.stringify(r.warnings)).toBe(true);
    } finally {
      // The failed removals renamed the file's directory up the tree, so clear the mark wherever under tmp it is now.
      if (marked) spawnSync('chattr', ['-R', '-i', tmp]);
    }
  });

  it('more entries than workspace_max_files end the rep resource_limit naming it, and the run goes on', { timeout: 600_000 }, async () => {
    const dir = mkdtempSync(join(base, 'workloads-'));
    const tmp = mkdtempSync(join(base, 'tmp-'));
    workload(dir, 'many', ['mkdir f && cd f && i=0; while [ $i -lt 3000 ]; do : > $i; i=$((i+1)); done; echo made']);
    workload(dir, 'calm', ['echo ok > ok.txt']);
    const db = join(base, 'many.db');
    const run = await benchRun(['--workloads-dir', dir, '--workload', 'many', '--workload', 'calm', '--db-path', db, '--limit', 'workspace_max_files=1000'], tmp);
    expect(run.code, run.stderr).not.toBe(2);
    const r = report(db);
    expect(rep(r, 'many').error_class).toBe('resource_limit');
    expect(rep(r, 'many').error).toMatch(/resource limit workspace_max_files \(1000\) exceeded/);
    expect(rep(r, 'calm').error).toBeNull();
  });
});
