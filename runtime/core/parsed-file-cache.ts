// Parsed data files kept as JSON beside the compiled CLI: a workload.yaml, sim.yaml or models.json (or a workload's kind) that has not changed
// (same size and mtime) is read back with JSON.parse instead of parsed as YAML and validated again, which
// was a fifth of `analyze` (every workload's sim script, for the true oracle). The folder is the one
// bin/launch.cjs names in METIS_BENCH_CACHE_DIR while dist/ is fresh, so the code and schemas that made an
// entry are the ones reading it, and a rebuild deletes them; without it every file is parsed as before.
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

interface Entry {
  file: string;
  size: number;
  mtimeMs: number;
  data: unknown;
}

/**
 * `parse()`'s result for `file` (absolute), from the cache in `cacheDir` when the file still has the size and
 * mtime it had when that result was kept. Only results that survive JSON unchanged are kept, and a parse
 * that throws keeps nothing, so a broken file reports the same error every time.
 */
export function cachedParse<T>(kind: string, file: string, parse: () => T, cacheDir: string | undefined = process.env.METIS_BENCH_CACHE_DIR): T {
  if (!cacheDir) return parse();
  let seen: { size: number; mtimeMs: number };
  try {
    seen = statSync(file);
  } catch {
    return parse();
  }
  const at = `${parsedDir(cacheDir)}${sep}${kind}-${createHash('sha256').update(file).digest('hex').slice(0, 20)}.json`;
  try {
    const kept = JSON.parse(readFileSync(at, 'utf8')) as Entry;
    if (kept.file === file && kept.size === seen.size && kept.mtimeMs === seen.mtimeMs) return kept.data as T;
  } catch {
    // Nothing kept yet (or unreadable): parse.
  }
  // The stat above was taken before the parse: a file edited meanwhile is stale next time, never wrongly fresh.
  const data = parse();
  try {
    const text = JSON.stringify({ file, size: seen.size, mtimeMs: seen.mtimeMs, data } satisfies Entry);
    if (isDeepStrictEqual((JSON.parse(text) as Entry).data, data)) {
      mkdirSync(parsedDir(cacheDir), { recursive: true });
      const tmp = `${at}.${process.pid}.tmp`;
      writeFileSync(tmp, text);
      renameSync(tmp, at);
    }
  } catch {
    // A read-only install parses every time, as before.
  }
  return data;
}
