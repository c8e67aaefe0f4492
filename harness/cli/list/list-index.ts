// The list index: what `bench list` printed last time for a workloads directory, kept with the size and
// mtime of every file it could have read, so an unchanged checkout lists in a few milliseconds instead of
// parsing every workload, compiling the schemas and reading the outcome matrices (about a second).
// It lives in a folder given by METIS_BENCH_CACHE_DIR, which bin/launch.cjs sets to dist/ only while dist/
// is fresh: the code that made an index is then the code that reads it, and a rebuild deletes it.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ListRows } from './list-rows.ts';

/** The environment variable naming the folder the index may be kept in (unset: no index). */
export const CACHE_DIR_ENV = 'METIS_BENCH_CACHE_DIR';
/** Indexes kept at most (one per workloads directory); the least recently written go first. */
const MAX_INDEXES = 16;
/** A tree with more entries than this is listed without an index (walking it would cost what the index saves). */
const MAX_ENTRIES = 20_000;
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
/** Folders the loaders read besides the workloads directory: the schemas and the shipped data (limits, prices). */
const CODE_DATA_DIRS = [join(REPO, 'schemas'), join(REPO, 'harness', 'data'), join(REPO, 'runtime', 'data')];

/** [size, mtimeMs] of a file (or a symlinked folder, not entered); 'dir' for a folder the walk entered; null: missing. */
type Seen = [number, number] | 'dir' | null;

interface ListIndexFile {
  root: string;
  inputs: [string, Seen][];
  rows: ListRows;
}

function statOf(path: string): Seen {
  try {
    const s = statSync(path);
    return [s.size, s.mtimeMs];
  } catch {
    return null;
  }
}

/**
 * Every folder and file under `dirs` (names sorted, so two walks of one tree compare equal), then each of
 * `files`. An added, removed, resized or touched file anywhere there changes it. Folders in `skip` are
 * left out; null when there are more than MAX_ENTRIES.
 */
export function snapshotInputs(dirs: readonly string[], files: readonly string[], skip: readonly string[] = []): [string, Seen][] | null {
  const out: [string, Seen][] = [];
  const walk = (dir: string): boolean => {
    if (skip.includes(dir)) return true;
    if (out.length > MAX_ENTRIES) return false;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      out.push([dir, null]);
      return true;
    }
    out.push([dir, 'dir']);
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        if (!walk(path)) return false;
      } else out.push([path, statOf(path)]);
    }
    return true;
  };
  for (const d of dirs) if (!walk(d)) return null;
  for (const f of files) out.push([f, statOf(f)]);
  return out;
}

function indexPath(cacheDir: string, root: string): string {
  return join(cacheDir, 'list-index', `${createHash('sha256').update(root).digest('hex').slice(0, 16)}.json`);
}

/**
 * The rows of `bench list` for the workloads directory `root` (absolute): from the index in `cacheDir` when
 * nothing it was made from has changed, else from `read` (then kept for next time, if the folder is writable).
 */
export async function listRowsIndexed(root: string, cacheDir: string | undefined, read: (root: string) => Promise<ListRows>): Promise<ListRows> {
  if (!cacheDir) return read(root);
  const dirs = [root, ...CODE_DATA_DIRS];
  // The index's own folder is never an input (a workloads directory holding dist/ would miss every time).
  const skip = [resolve(cacheDir)];
  const file = indexPath(cacheDir, root);
  try {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as ListIndexFile;
    if (kept.root === root && JSON.stringify(snapshotInputs(dirs, kept.rows.outside, skip)) === JSON.stringify(kept.inputs)) return kept.rows;
  } catch {
    // No index yet, or an unreadable one: read the workloads.
  }
  // Taken before reading, as the dist stamp is: a file edited while it is read shows as changed next time.
  const before = snapshotInputs(dirs, [], skip);
  const rows = await read(root);
  if (before === null) return rows;
  // Files outside the tree are known only after reading; they are stat'ed now.
  const inputs = [...before, ...snapshotInputs([], rows.outside)!];
  try {
    mkdirSync(join(cacheDir, 'list-index'), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ root, inputs, rows } satisfies ListIndexFile));
    renameSync(tmp, file);
    pruneIndexes(join(cacheDir, 'list-index'));
  } catch {
    // A read-only install lists without an index, as fast as before.
  }
  return rows;
}

/** Keeps the MAX_INDEXES most recently written indexes (tests and --workloads-dir make one per folder). */
function pruneIndexes(dir: string): void {
  const files = readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .map((n) => ({ path: join(dir, n), mtime: statSync(join(dir, n)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const f of files.slice(MAX_INDEXES)) rmSync(f.path, { force: true });
}
