import { renameSync, rmSync, writeFileSync } from 'node:fs';

/**
 * Writes `value` as indented JSON (and a final newline) to `path` through a temporary file beside it, renamed
 * over `path` once whole: a reader, or a process killed mid-write (kill -9, a full disk), finds the previous
 * file or the new one, never a torn report. The temporary file is removed when the write fails.
 */
export function writeJsonFile(path: string, value: unknown): void {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true, recursive: true });
    throw e;
  }
}
