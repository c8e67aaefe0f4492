import { cpSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeTree } from '../sandbox/index.ts';
import { diskLimitMessage, diskUsage, diskUse, ResourceLimitError } from '../sandbox/resource-limits.ts';
import { treeLimitMessage } from '../sandbox/tree-walk.ts';
import { copyTreeBounded, type CopyBounds } from './bounded-copy.ts';
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

/** How to stage a check; without bounds the copy takes the workspace whatever its size (measurements only). */
export interface StageCheckOptions {
  workspaceRoot: string;
  checkFilesDir?: string | null;
  mount?: string;
  /** workspace_max_bytes: the most the copy may write. */
  maxBytes?: number;
  /** workspace_max_files: the most entries the copy may make. */
  maxFiles?: number;
  /** workspace_max_depth: the deepest entry the copy takes. */
  maxDepth?: number;
}

/**
 * Copies the finished workspace into a new temp directory the agent never saw, then the hidden
 * check files into `<copy>/<mount>` (when `checkFilesDir` is given, the workspace's own `<mount>`
 * is left out, whatever the agent put there), and writes the report hook beside it. A workspace
 * past a bound (bytes as the larger of allocated and apparent size, each hard-linked file once;
 * entries; depth) is refused before anything is copied, and the copy counts what it writes against
 * the same bounds as it goes (the copy does not keep holes: a sparse file is written out in full).
 * Hard links stay links, so 200 links to one file cost one file's bytes, not 200.
 */
export function stageCheck(options: StageCheckOptions): CheckStage {
  const workspace = realpathSync(options.workspaceRoot);
  const bounds: CopyBounds = { maxBytes: options.maxBytes ?? Infinity, maxEntries: options.maxFiles ?? Infinity, maxDepth: options.maxDepth ?? Infinity };
  if (options.maxBytes !== undefined || options.maxFiles !== undefined || options.maxDepth !== undefined) {
    const usage = diskUsage([workspace], bounds.maxBytes, bounds);
    const refuse = (limit: ResourceLimitError['limit'], why: string) => new ResourceLimitError(limit, `the check's staging copy refused the workspace: ${why}`);
    if (usage.over) throw refuse(usage.over, treeLimitMessage(usage.over, usage.over === 'workspace_max_files' ? bounds.maxEntries : bounds.maxDepth));
    if (diskUse(usage) > bounds.maxBytes) throw refuse('workspace_max_bytes', diskLimitMessage(usage, bounds.maxBytes));
  }
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'metis-check-')));
  const cleanup = () => removeTree(dir);
  try {
    const work = join(dir, 'work');
    const reportDir = join(dir, 'report');
    const hookDir = join(dir, 'hook');
    const replaceMount = options.checkFilesDir ? (options.mount ?? '.bench-check') : null;
    copyTreeBounded(workspace, work, { bounds, linkPool: join(dir, 'links'), leaveOut: replaceMount });
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
