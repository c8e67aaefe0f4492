import { cpSync, lstatSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, sep } from 'node:path';
import { isWithin, removeTree } from '../sandbox/index.ts';
import { diskLimitMessage, diskUsage, diskUse, ResourceLimitError } from '../sandbox/resource-limits.ts';
import { PYTHON_REPORT_HOOK } from './check-report.ts';

/** A fresh place for one check run, outside the agent's workspace, removed by `cleanup`. */
export interface CheckStage {
  /** The agent's files, copied by value, with the hidden check files under `mount`: the check's cwd. */
  work: string;
  /** Where the check's Python processes write their reports (outside `work`, so the agent's files cannot sit there). */
  reportDir: string;
  /** Holds the report hook's `sitecustomize.py`; first on the check's PYTHONPATH. */
  hookDir: string;
  cleanup(): void;
}

/**
 * True for what the agent left that the check must not see: the check's own mount (the agent may
 * have pre-created it, its contents are not the check's), bytecode caches (a `.pyc` can stand in
 * for a source file), special files, and symlinks that lead out of the workspace.
 */
function leftOut(workspace: string, mount: string | null, src: string): boolean {
  const rel = relative(workspace, src);
  if (mount !== null && (rel === mount || rel.startsWith(mount + sep))) return true;
  const name = basename(src);
  if (name === '__pycache__' || name.endsWith('.pyc')) return true;
  const st = lstatSync(src);
  // A FIFO, socket or device would make the copy throw (a check error, not the agent's failure) or block.
  if (!st.isFile() && !st.isDirectory() && !st.isSymbolicLink()) return true;
  if (st.isSymbolicLink()) {
    try {
      return !isWithin(workspace, realpathSync(src));
    } catch {
      return true; // dangling
    }
  }
  return false;
}

/**
 * Copies the finished workspace into a new temp directory the agent never saw, then the hidden
 * check files into `<copy>/<mount>` (when `checkFilesDir` is given, the workspace's own `<mount>`
 * is left out, whatever the agent put there), and writes the report hook beside it. A workspace
 * whose allocated or apparent size passes `maxBytes` is refused before anything is copied (the
 * copy does not keep holes: a sparse file would be written out in full).
 */
export function stageCheck(options: { workspaceRoot: string; checkFilesDir?: string | null; mount?: string; maxBytes?: number }): CheckStage {
  const workspace = realpathSync(options.workspaceRoot);
  if (options.maxBytes !== undefined) {
    const usage = diskUsage([workspace], options.maxBytes);
    if (diskUse(usage) > options.maxBytes) throw new ResourceLimitError('workspace_max_bytes', `the check's staging copy refused the workspace: ${diskLimitMessage(usage, options.maxBytes)}`);
  }
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'metis-check-')));
  const cleanup = () => removeTree(dir);
  try {
    const work = join(dir, 'work');
    const reportDir = join(dir, 'report');
    const hookDir = join(dir, 'hook');
    const replaceMount = options.checkFilesDir ? (options.mount ?? '.bench-check') : null;
    cpSync(workspace, work, { recursive: true, verbatimSymlinks: true, filter: (src) => src === workspace || !leftOut(workspace, replaceMount, src) });
    if (options.checkFilesDir && replaceMount) cpSync(options.checkFilesDir, join(work, replaceMount), { recursive: true });
    mkdirSync(reportDir);
    mkdirSync(hookDir);
    writeFileSync(join(hookDir, 'sitecustomize.py'), PYTHON_REPORT_HOOK);
    return { work, reportDir, hookDir, cleanup };
  } catch (e) {
    cleanup();
    throw e;
  }
}
