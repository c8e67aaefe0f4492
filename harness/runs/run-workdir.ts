import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where every run keeps its temp workspaces: `<tmp>/metis-bench-runs/<run id>.<pid>/`. */
export function workRoot(tmp: string = tmpdir()): string {
  return join(tmp, 'metis-bench-runs');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the work dirs of runs whose process is gone (killed with SIGKILL, crashed): their temp
 * workspaces, hidden checks included. Dirs of live processes (a parallel run) are left alone.
 * Returns the dirs removed.
 */
export function sweepDeadWorkDirs(tmp: string = tmpdir()): string[] {
  const root = workRoot(tmp);
  if (!existsSync(root)) return [];
  const removed: string[] = [];
  for (const name of readdirSync(root)) {
    const pid = Number(/\.(\d+)$/.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid > 0 && alive(pid)) continue;
    rmSync(join(root, name), { recursive: true, force: true });
    removed.push(join(root, name));
  }
  return removed;
}

/** Creates this process's work dir for a run. */
export function createRunWorkDir(runId: string, tmp: string = tmpdir()): string {
  const dir = join(workRoot(tmp), `${runId}.${process.pid}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}
