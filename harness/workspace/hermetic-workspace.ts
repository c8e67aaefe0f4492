import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Runs `fn` on a fresh temp copy of `fixtureDir` and removes the copy afterwards, whatever happens,
 * so the in-tree fixture is never touched and nothing persists between runs (benchmark.md §3.2).
 */
export async function withWorkspaceCopy<T>(fixtureDir: string, fn: (root: string) => Promise<T>): Promise<T> {
  const parent = mkdtempSync(join(tmpdir(), 'metis-bench-'));
  const root = join(parent, 'workspace');
  try {
    // verbatimSymlinks keeps fixture symlinks as they are; the sandbox decides whether they lead out.
    cpSync(fixtureDir, root, { recursive: true, verbatimSymlinks: true });
    return await fn(root);
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
}

/** Copies hidden check files into the finished workspace copy (only after the last turn). */
export function mountCheckFiles(checkDir: string, workspaceRoot: string, mount: string): void {
  cpSync(checkDir, join(workspaceRoot, mount), { recursive: true });
}
