import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh temp directory for a test's files. */
export function tempDir(prefix = 'bench-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** The repository root. */
export const REPO_ROOT = new URL('../../', import.meta.url).pathname;
