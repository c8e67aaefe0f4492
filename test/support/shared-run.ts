// One `bench run` shared by the test files that only read its output: built once per commit and inputs
// (the working tree's changes included), then copied for each caller so no test sees another's writes.
// Parallel workers wait for the first builder instead of each running the same run.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bench, REPO_ROOT, tempDir } from './cli.ts';

const CACHE = join(tmpdir(), 'metis-test-runs');
const DB = 'run.db';

/** What the run's output depends on: the checkout, its commit, its changes and untracked files, the arguments and env; null without git. */
function inputsKey(args: readonly string[], env: Record<string, string | undefined>): string | null {
  const git = (...a: string[]) => execFileSync('git', a, { cwd: REPO_ROOT, maxBuffer: 1 << 30 });
  // The checkout too: the run records its paths (workloads dir, pattern store), and another clone's would differ.
  const h = createHash('sha256').update(JSON.stringify({ args, env, root: REPO_ROOT }));
  try {
    h.update(git('rev-parse', 'HEAD'));
    h.update(git('diff', 'HEAD', '--binary'));
    for (const f of git('ls-files', '-o', '--exclude-standard', '-z').toString().split('\0').filter(Boolean)) h.update(f).update(readFileSync(join(REPO_ROOT, f)));
  } catch {
    return null;
  }
  return h.digest('hex').slice(0, 24);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Runs `bench run ARGS --db-path DIR/run.db` in-process into `dir`; the run's exit must be 0 or 1 (a rep may fail). */
async function build(dir: string, args: readonly string[], env: Record<string, string | undefined>): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const r = await bench(['run', ...args, '--db-path', join(dir, DB)], { env });
  if (r.code !== 0 && r.code !== 1) throw new Error(`shared run failed (exit ${r.code}): ${r.stderr}`);
}

/**
 * A private copy of the output of `bench run ARGS` (with `env`), made by the first caller for these inputs
 * and reused by every later one; returns the copy's DB path (its report and stores beside it).
 */
export async function sharedRun(args: readonly string[], env: Record<string, string | undefined>): Promise<string> {
  const mine = tempDir('bench-shared-');
  const key = inputsKey(args, env);
  if (key === null) {
    await build(mine, args, env);
    return join(mine, DB);
  }
  // Built in place (the run records its own paths, such as its pattern store's), complete once `ready` exists.
  const done = join(CACHE, key);
  const ready = join(done, '.ready');
  const lock = `${done}.lock`;
  mkdirSync(CACHE, { recursive: true });
  for (const started = Date.now(); !existsSync(ready); ) {
    try {
      mkdirSync(lock);
    } catch {
      // Another worker builds it; take over only when that worker is gone.
      const pid = Number(existsSync(join(lock, 'pid')) ? readFileSync(join(lock, 'pid'), 'utf8') : NaN);
      if (Number.isInteger(pid) && !alive(pid)) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() - started > 600_000) throw new Error(`shared run ${done}: still being built after 10 min (remove ${lock} if no test runs)`);
      else await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    try {
      writeFileSync(join(lock, 'pid'), String(process.pid));
      if (!existsSync(ready)) {
        rmSync(done, { recursive: true, force: true });
        await build(done, args, env);
        writeFileSync(ready, '');
      }
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  // SQLite's -wal/-shm beside a store are another reader's, open right now (the run closed its files, so the
  // main files are whole): copying them would race with that reader.
  cpSync(done, mine, { recursive: true, filter: (src) => src !== ready && !/-(wal|shm)$/.test(src) });
  return join(mine, DB);
}
