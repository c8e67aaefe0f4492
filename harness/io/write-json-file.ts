import { closeSync, openSync, renameSync, rmSync, writeSync, writevSync } from 'node:fs';
import { indentedJsonPieces } from './json-pieces.ts';

/** Writes `pieces` (UTF-8) to `fd` in one call; whatever a short write leaves is written after it. */
function writePieces(fd: number, pieces: readonly string[]): void {
  const buffers = pieces.map((p) => Buffer.from(p, 'utf8'));
  const total = buffers.reduce((n, b) => n + b.length, 0);
  let done = writevSync(fd, buffers);
  if (done === total) return;
  const rest = Buffer.concat(buffers);
  while (done < total) done += writeSync(fd, rest, done, total - done);
}

/**
 * Writes `value` as indented JSON (and a final newline) to `path` through a temporary file beside it, renamed
 * over `path` once whole: a reader, or a process killed mid-write (kill -9, a full disk), finds the previous
 * file or the new one, never a torn report. The temporary file is removed when the write fails.
 */
export function writeJsonFile(path: string, value: unknown): void {
  // The text in pieces, not one string: see json-pieces.ts (a value JSON cannot hold throws here, before any file is made).
  const pieces = indentedJsonPieces(value);
  pieces.push('\n');
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    const fd = openSync(tmp, 'w');
    try {
      writePieces(fd, pieces);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true, recursive: true });
    throw e;
  }
}
