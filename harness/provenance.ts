import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The root of this package (where its git checkout is, for provenance). */
export const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Git facts of benchmark.md §6.1; null when not in a git checkout. */
export interface GitFacts {
  sha: string | null;
  branch: string | null;
  dirty: boolean | null;
}

function git(cwd: string, args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

/** Reads commit, branch and dirtiness of the checkout at `cwd`. */
export function readGitFacts(cwd: string): GitFacts {
  const sha = git(cwd, ['rev-parse', 'HEAD']);
  if (sha === null) return { sha: null, branch: null, dirty: null };
  const status = git(cwd, ['status', '--porcelain']);
  return { sha, branch: git(cwd, ['rev-parse', '--abbrev-ref', 'HEAD']), dirty: status === null ? null : status.length > 0 };
}
