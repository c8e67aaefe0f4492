import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeTree } from '../../runtime/sandbox/index.ts';
import { assertSelfContainedFixture } from './fixture-links.ts';

/**
 * The rep finished but its workspace copy could not be removed: `result` is what the rep returned,
 * so the caller can record the rep (as an error) and the run go on.
 */
export class WorkspaceCleanupError<T> extends Error {
  constructor(
    readonly result: T,
    readonly dir: string,
    cause: unknown,
  ) {
    super(`the rep's workspace copy ${dir} could not be removed: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'WorkspaceCleanupError';
  }
}

/**
 * Runs `fn` on a fresh temp copy of `fixtureDir` and removes the copy afterwards, whatever happens,
 * so the in-tree fixture is never touched and nothing persists between runs (benchmark.md §3.2).
 * `parentDir` (default: the OS temp dir) is where the copy goes. The copy is removed however deep
 * the agent made it (removeTree); if it still cannot be, `fn`'s result comes back inside a
 * WorkspaceCleanupError (an error `fn` threw wins over the cleanup's). `remove` is for tests.
 */
export async function withWorkspaceCopy<T>(fixtureDir: string, fn: (root: string) => Promise<T>, parentDir: string = tmpdir(), remove: (dir: string) => void = removeTree): Promise<T> {
  // A symlinked fixture, or a link in it leading out, is refused before anything is copied (exit 2).
  assertSelfContainedFixture(fixtureDir);
  // A run passes its own work dir, so a copy left by a killed process is swept by the next run.
  const parent = mkdtempSync(join(parentDir, 'metis-bench-'));
  const root = join(parent, 'workspace');
  let result: T;
  try {
    // verbatimSymlinks keeps fixture symlinks as they are: all of them stay inside (checked above).
    cpSync(fixtureDir, root, { recursive: true, verbatimSymlinks: true });
    result = await fn(root);
  } catch (e) {
    try {
      remove(parent);
    } catch {
      // fn's own error is the one to report; the leftover goes with the run's work dir
    }
    throw e;
  }
  try {
    remove(parent);
  } catch (e) {
    throw new WorkspaceCleanupError(result, parent, e);
  }
  return result;
}
