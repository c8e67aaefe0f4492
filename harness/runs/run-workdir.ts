import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeTree } from '../../runtime/sandbox/index.ts';

/** Where every run keeps its temp workspaces: `<tmp>/metis-bench-runs/<run id>.<pid>/`. */
export function workRoot(tmp: string = tmpdir()): string {
  return join(tmp, 'metis-bench-runs');
}

/** The file in a run's work dir that says which process owns it. */
export const OWNER_FILE = 'owner.json';

/** Who owns a work dir: the process, and when it started (so a reused pid is not taken for the owner). */
export interface WorkDirOwner {
  pid: number;
  /** The process's start time in clock ticks since boot (`/proc/<pid>/stat` field 22), or null where there is no /proc. */
  started: number | null;
  run_id: string;
}

/** A process's start time in clock ticks since boot, or null when it is gone or there is no /proc. */
export function processStartTime(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    return Number.isFinite(ticks) ? ticks : null;
  } catch {
    return null;
  }
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

/** The owner a work dir names: its owner.json, else the pid in its name (a dir made before owner.json existed, or being made now). */
function ownerOf(dir: string, name: string): { pid: number; started: number | null } | null {
  try {
    const o = JSON.parse(readFileSync(join(dir, OWNER_FILE), 'utf8')) as Partial<WorkDirOwner>;
    if (Number.isInteger(o.pid) && o.pid! > 0) return { pid: o.pid!, started: typeof o.started === 'number' ? o.started : null };
  } catch {
    // no owner file yet, or a torn one: fall back to the name
  }
  const pid = Number(/\.(\d+)$/.exec(name)?.[1]);
  return Number.isInteger(pid) && pid > 0 ? { pid, started: null } : null;
}

/** Whether the owning process still runs: the pid is alive and, when both start times are known, it is the same process. */
function ownerAlive(owner: { pid: number; started: number | null }): boolean {
  if (!alive(owner.pid)) return false;
  if (owner.started === null) return true;
  const now = processStartTime(owner.pid);
  return now === null || now === owner.started;
}

/** What a sweep did: the dirs it removed, and one warning per dir it removed or could not. */
export interface SweepResult {
  removed: string[];
  warnings: string[];
}

/**
 * Removes the work dirs of runs whose process is gone (killed with SIGKILL, crashed): their temp
 * workspaces, hidden checks included, however deep. Dirs of live processes (a parallel run) are
 * left alone. Never throws: a dir that cannot be removed costs a warning, and the run goes on in
 * its own dir.
 */
export function sweepDeadWorkDirs(tmp: string = tmpdir()): SweepResult {
  const root = workRoot(tmp);
  const result: SweepResult = { removed: [], warnings: [] };
  let names: string[];
  try {
    names = existsSync(root) ? readdirSync(root) : [];
  } catch (e) {
    result.warnings.push(`could not list ${root} to remove the leftovers of earlier runs: ${(e as Error).message}`);
    return result;
  }
  for (const name of names) {
    const dir = join(root, name);
    const owner = ownerOf(dir, name);
    if (owner && ownerAlive(owner)) continue;
    try {
      removeTree(dir);
      result.removed.push(dir);
      result.warnings.push(`removed ${dir}, left by a run whose process${owner ? ` (pid ${owner.pid})` : ''} is gone`);
    } catch (e) {
      result.warnings.push(`could not remove ${dir}, left by a run whose process is gone (${(e as Error).message}); remove it by hand`);
    }
  }
  return result;
}

/** Creates this process's work dir for a run, with the owner file that tells a later sweep whether this process still runs. */
export function createRunWorkDir(runId: string, tmp: string = tmpdir()): string {
  const dir = join(workRoot(tmp), `${runId}.${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const owner: WorkDirOwner = { pid: process.pid, started: processStartTime(process.pid), run_id: runId };
  writeFileSync(join(dir, OWNER_FILE), `${JSON.stringify(owner)}\n`);
  return dir;
}
