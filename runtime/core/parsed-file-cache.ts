// Parsed data files kept as JSON beside the compiled CLI: a workload.yaml, sim.yaml or models.json (or a workload's kind) that has not changed
// (same size and mtime) is read back with JSON.parse instead of parsed as YAML and validated again, which
// was a fifth of `analyze` (every workload's sim script, for the true oracle). A result that depends on several
// files and folders (a workload's load and its script) is kept the same way against all of them (cachedResult).
// The folder is the one bin/launch.cjs names in METIS_BENCH_CACHE_DIR while dist/ is fresh, so the code and
// schemas that made an entry are the ones reading it, and a rebuild deletes them; without it every file is parsed as before.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

// The folder of the last cacheDir asked for (one per process in practice): a join per lookup cost microseconds, cold.
let parsedFolder: { cacheDir: string; dir: string } | null = null;

/** `join(cacheDir, 'parsed')`, normalized once per cacheDir. */
function parsedDir(cacheDir: string): string {
  if (parsedFolder?.cacheDir !== cacheDir) parsedFolder = { cacheDir, dir: join(cacheDir, 'parsed') };
  return parsedFolder.dir;
}

/** A path's kind, size and mtime when a result was kept (1 for a folder, 0 for a file), or null when it did not exist. */
type Seen = readonly [folder: 0 | 1, size: number, mtimeMs: number] | null;

interface Entry {
  files: string[];
  seen: Seen[];
  data: unknown;
}

/** What is at `path` now; undefined when it cannot be told (a stat that failed for another reason than absence). */
function seenAt(path: string): Seen | undefined {
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    return st === undefined ? null : [st.isDirectory() ? 1 : 0, st.size, st.mtimeMs];
  } catch {
    return undefined;
  }
}

/** Whether two lists of what was seen at the same paths agree. */
function sameSeen(a: readonly Seen[], b: readonly Seen[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (!x || !y || x[0] !== y[0] || x[1] !== y[1] || x[2] !== y[2]) return false;
  }
  return true;
}

/**
 * `parse()`'s result for `file` (absolute), from the cache in `cacheDir` when the file still has the size and
 * mtime it had when that result was kept. Only results that survive JSON unchanged are kept, and a parse
 * that throws keeps nothing, so a broken file reports the same error every time.
 */
export function cachedParse<T>(kind: string, file: string, parse: () => T, cacheDir: string | undefined = process.env.METIS_BENCH_CACHE_DIR): T {
  return cachedResult(kind, [file], parse, cacheDir);
}

/**
 * `compute()`'s result, from the cache in `cacheDir` when every one of `files` (absolute paths of files or folders
 * that decide it, some of which may not exist) is as it was when that result was kept: there or not, a folder or
 * not, of the same size and mtime. The same rules as cachedParse: kept only when it survives JSON, never after a
 * throw, and computed every time when a path cannot be stat'ed or there is no cache folder.
 */
export function cachedResult<T>(kind: string, files: readonly string[], compute: () => T, cacheDir: string | undefined = process.env.METIS_BENCH_CACHE_DIR): T {
  if (!cacheDir) return compute();
  const seen: Seen[] = [];
  for (const f of files) {
    const s = seenAt(f);
    if (s === undefined) return compute();
    seen.push(s);
  }
  const at = `${parsedDir(cacheDir)}${sep}${kind}-${createHash('sha256').update(files.join('\0')).digest('hex').slice(0, 20)}.json`;
  try {
    const kept = JSON.parse(readFileSync(at, 'utf8')) as Entry;
    if (isDeepStrictEqual(kept.files, files) && sameSeen(kept.seen, seen)) return kept.data as T;
  } catch {
    // Nothing kept yet (or unreadable): compute.
  }
  // The paths were stat'ed before the computation: one changed meanwhile is stale next time, never wrongly fresh.
  const data = compute();
  try {
    const text = JSON.stringify({ files: [...files], seen, data } satisfies Entry);
    if (isDeepStrictEqual((JSON.parse(text) as Entry).data, data)) {
      mkdirSync(parsedDir(cacheDir), { recursive: true });
      const tmp = `${at}.${process.pid}.tmp`;
      writeFileSync(tmp, text);
      renameSync(tmp, at);
    }
  } catch {
    // A read-only install computes every time, as before.
  }
  return data;
}
