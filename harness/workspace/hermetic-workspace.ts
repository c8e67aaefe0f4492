import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertSelfContainedFixture } from './fixture-links.ts';

/**
 * Runs `fn` on a fresh temp copy of `fixtureDir` and removes the copy afterwards, whatever happens,
 * so the in-tree fixture is never touched and nothing persists between runs (benchmark.md §3.2).
 * `parentDir` (default: the OS temp dir) is where the copy goes.
 */
export async function withWorkspaceCopy<T>(fixtureDir: string, fn: (root: string) => Promise<T>, parentDir: string = tmpdir()): Promise<T> {
  // A symlinked fixture, or a link in it leading out, is refused before anything is copied (exit 2).
  assertSelfContainedFixture(fixtureDir);
  // A run passes its own work dir, so a copy left by a killed process is swept by the next run.
  const parent = mkdtempSync(join(parentDir, 'metis-bench-'));
  const root = join(parent, 'workspace');
  try {
    // verbatimSymlinks keeps fixture symlinks as they are: all of them stay inside (checked above).
    cpSync(fixtureDir, root, { recursive: true, verbatimSymlinks: true });
    return await fn(root);
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
}
