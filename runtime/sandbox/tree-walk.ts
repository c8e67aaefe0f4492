import { closeSync, constants, existsSync, lstatSync, openSync, opendirSync, type Dir, type Stats } from 'node:fs';
import { join } from 'node:path';

/** How far a walk may go before it stops: entries counted across its roots, and levels below a root. */
export interface TreeBounds {
  maxEntries: number;
  maxDepth: number;
}

/** The bound a walk stopped at, named as in runtime/data/resource-limits.json. */
export type TreeBound = 'workspace_max_files' | 'workspace_max_depth';

/** One entry as the walk meets it. */
export interface TreeEntry {
  name: string;
  /**
   * A path to the entry under PATH_MAX, valid only during the visit: the real path while that is
   * short, else through the parent's open descriptor (`/proc/self/fd/N/name`), so it works however
   * deep the entry sits.
   */
  path: string;
  /** 1 for a root's children. */
  depth: number;
  /** lstat of the entry: a symlink is not followed. */
  stat: Stats;
  /** The path relative to the root (joined on demand: deep paths are long). */
  rel(): string;
}

/**
 * What a walk calls: `entry` for each entry (`false` keeps it from descending into a directory,
 * `'stop'` ends the walk there), `leave` after a directory's entries.
 */
export interface TreeVisitor {
  entry(e: TreeEntry): boolean | 'stop' | void;
  leave?(e: TreeEntry): void;
}

/** How a walk ended: the entries it met, and the bound it stopped at (null when it saw everything). */
export interface TreeWalkResult {
  entries: number;
  over: TreeBound | null;
}

/** An entry that finds its relative path through its parent's entry, so making one costs the same at any depth. */
function treeEntry(name: string, path: string, depth: number, stat: Stats, parent: TreeEntry | null): TreeEntry {
  return { name, path, depth, stat, rel: () => (parent ? join(parent.rel(), name) : name) };
}

interface Frame {
  fd: number;
  dir: Dir;
  /** What the walk passes the kernel for this directory's entries: its real path while short, else through its descriptor. */
  base: string;
  /** Whether `base` is the real path (a child's real path is then `base/name`). */
  real: boolean;
  entry: TreeEntry | null;
}

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const viaProc = existsSync('/proc/self/fd');
/**
 * Real paths up to this length are used as they are (the kernel resolves them faster than a
 * `/proc/self/fd` path); past it, with room left for one more name, the walk goes through descriptors.
 */
const SHORT_PATH = 3072;

function openFrame(path: string, entry: TreeEntry | null, follow: boolean, real: boolean): Frame {
  const fd = openSync(path, follow ? constants.O_RDONLY | constants.O_DIRECTORY : DIR_FLAGS);
  try {
    const keep = !viaProc || (real && path.length <= SHORT_PATH);
    const base = keep ? path : `/proc/self/fd/${fd}`;
    return { fd, dir: opendirSync(base, { bufferSize: 64 }), base, real: keep, entry };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

function closeFrame(f: Frame): void {
  try {
    f.dir.closeSync();
  } finally {
    closeSync(f.fd);
  }
}

/**
 * Walks each root depth-first, without recursion and without holding the tree: one open directory
 * per level (at most `maxDepth` + 1, each read in small batches), so a million files in one
 * directory cost no more memory than ten. Every path it passes the kernel stays under PATH_MAX
 * (past a few KB it goes through the parent's descriptor), so a tree deeper than PATH_MAX is
 * walked, not skipped. A directory is opened without following a symlink in its last component,
 * so one swapped in for it while the walk runs is not followed.
 * Stops at the first entry past `maxEntries` (counted across the roots) or deeper than `maxDepth`.
 * Entries that vanish or cannot be read while it walks are skipped. The roots themselves are
 * followed if they are links.
 */
export function walkTree(roots: readonly string[], bounds: TreeBounds, visitor: TreeVisitor): TreeWalkResult {
  let entries = 0;
  for (const root of roots) {
    let first: Frame;
    try {
      first = openFrame(root, null, true, true);
    } catch {
      continue; // gone or not a directory: nothing under it to count
    }
    const stack: Frame[] = [first];
    try {
      while (stack.length > 0) {
        const top = stack[stack.length - 1]!;
        const d = top.dir.readSync();
        if (d === null) {
          stack.pop();
          closeFrame(top);
          if (top.entry) visitor.leave?.(top.entry);
          continue;
        }
        entries += 1;
        if (entries > bounds.maxEntries) return { entries, over: 'workspace_max_files' };
        const depth = stack.length;
        if (depth > bounds.maxDepth) return { entries, over: 'workspace_max_depth' };
        const path = join(top.base, d.name);
        let stat: Stats;
        try {
          stat = lstatSync(path);
        } catch {
          continue;
        }
        const entry = treeEntry(d.name, path, depth, stat, top.entry);
        const go = visitor.entry(entry);
        if (go === 'stop') return { entries, over: null };
        if (go === false || !stat.isDirectory()) continue;
        try {
          stack.push(openFrame(path, entry, false, top.real));
        } catch {
          // unreadable, or swapped for something else since lstat: counted as its own entry only
        }
      }
    } finally {
      for (const f of stack) closeFrame(f);
    }
  }
  return { entries, over: null };
}

/** The message of a walk stopped at `bound`, naming its value and where to change it. */
export function treeLimitMessage(bound: TreeBound, max: number): string {
  const what = bound === 'workspace_max_files' ? `the workspace holds more than ${max} entries (files, directories and links)` : `the workspace nests entries more than ${max} directory levels deep`;
  return `resource limit ${bound} (${max}) exceeded: ${what} (raise it with --limit ${bound}=N)`;
}
