import { closeSync, constants, copyFileSync, fchmodSync, linkSync, mkdirSync, openSync, readlinkSync, realpathSync, symlinkSync } from 'node:fs';
import { join, sep } from 'node:path';
import { isWithin, removeTree } from '../sandbox/index.ts';
import { formatBytes, ResourceLimitError } from '../sandbox/resource-limits.ts';
import { treeLimitMessage, walkTree, type TreeBounds, type TreeEntry } from '../sandbox/tree-walk.ts';

/** What a staging copy may write: bytes (each file at the larger of apparent and allocated size), entries, depth. */
export interface CopyBounds extends TreeBounds {
  maxBytes: number;
}

/** How to copy a workspace for a check. */
export interface BoundedCopyOptions {
  bounds: CopyBounds;
  /** A directory on the destination's file system (made and removed here) that holds one name per hard-linked file while copying. */
  linkPool: string;
  /** A path relative to the source root left out with everything under it (the check's own mount), or null. */
  leaveOut: string | null;
}

/** What the copy wrote. */
export interface BoundedCopyResult {
  bytes: number;
  entries: number;
}

/**
 * True for what the agent left that the check must not see: the check's own mount (the agent may
 * have pre-created it, its contents are not the check's), bytecode caches (a `.pyc` can stand in
 * for a source file), special files, and symlinks that lead out of the workspace.
 */
function leftOut(workspace: string, mount: string | null, mountDepth: number, e: TreeEntry): boolean {
  // Deeper than the mount, an entry's ancestor at the mount's depth was already left out if it was the mount.
  if (mount !== null && e.depth <= mountDepth) {
    const rel = e.rel();
    if (rel === mount || rel.startsWith(mount + sep)) return true;
  }
  if (e.name === '__pycache__' || e.name.endsWith('.pyc')) return true;
  // A FIFO, socket or device would make the copy throw (a check error, not the agent's failure) or block.
  if (!e.stat.isFile() && !e.stat.isDirectory() && !e.stat.isSymbolicLink()) return true;
  if (e.stat.isSymbolicLink()) {
    try {
      return !isWithin(workspace, realpathSync.native(e.path));
    } catch {
      return true; // dangling, or too deep to resolve
    }
  }
  return false;
}

/**
 * Copies `src` to a new directory `dest`, walking it with walkTree (bounded memory, any depth,
 * every path short: each destination directory is reached through its open descriptor) and
 * counting every byte and entry against `bounds` before it is written, so the copy itself can
 * never pass them, whatever the source holds or does meanwhile. A file with several hard links
 * is written once and linked for the others (its first copy keeps a name in `linkPool`), so
 * links cost no bytes. Symlinks are copied as they are (`leftOut` drops those leading out);
 * directories keep their modes, files their modes and contents.
 */
export function copyTreeBounded(src: string, dest: string, options: BoundedCopyOptions): BoundedCopyResult {
  const { bounds, linkPool, leaveOut } = options;
  const mountDepth = leaveOut === null ? 0 : leaveOut.split(sep).length;
  const used: BoundedCopyResult = { bytes: 0, entries: 0 };
  const charge = (bytes: number) => {
    if (used.entries + 1 > bounds.maxEntries) throw new ResourceLimitError('workspace_max_files', `the check's staging copy stopped: ${treeLimitMessage('workspace_max_files', bounds.maxEntries)}`);
    if (used.bytes + bytes > bounds.maxBytes)
      throw new ResourceLimitError('workspace_max_bytes', `the check's staging copy stopped: resource limit workspace_max_bytes (${formatBytes(bounds.maxBytes)}) exceeded: the copy would write more than that (raise it with --limit workspace_max_bytes=N)`);
    used.entries += 1;
    used.bytes += bytes;
  };
  mkdirSync(dest);
  mkdirSync(linkPool);
  // The open destination directory for each level the walk is in; a directory's mode is set when it is left.
  const dirs: { fd: number; mode: number }[] = [{ fd: openSync(dest, constants.O_RDONLY | constants.O_DIRECTORY), mode: -1 }];
  const linked = new Map<string, string>();
  const at = (name: string) => `/proc/self/fd/${dirs[dirs.length - 1]!.fd}/${name}`;
  try {
    const walked = walkTree([src], bounds, {
      entry: (e) => {
        if (leftOut(src, leaveOut, mountDepth, e)) return false;
        const to = at(e.name);
        const st = e.stat;
        if (st.isDirectory()) {
          charge(0);
          mkdirSync(to, 0o700);
          dirs.push({ fd: openSync(to, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW), mode: st.mode & 0o7777 });
          return true;
        }
        if (st.isSymbolicLink()) {
          charge(0);
          symlinkSync(readlinkSync(e.path), to);
          return true;
        }
        const key = `${st.dev}:${st.ino}`;
        const first = st.nlink > 1 ? linked.get(key) : undefined;
        if (first !== undefined) {
          charge(0);
          linkSync(first, to);
          return true;
        }
        charge(Math.max(st.size, st.blocks * 512));
        copyFileSync(e.path, to);
        if (st.nlink > 1) {
          const pooled = join(linkPool, String(linked.size));
          linkSync(to, pooled);
          linked.set(key, pooled);
        }
        return true;
      },
      leave: () => {
        const d = dirs.pop()!;
        try {
          fchmodSync(d.fd, d.mode);
        } finally {
          closeSync(d.fd);
        }
      },
    });
    if (walked.over) throw new ResourceLimitError(walked.over, `the check's staging copy stopped: ${treeLimitMessage(walked.over, walked.over === 'workspace_max_files' ? bounds.maxEntries : bounds.maxDepth)}`);
  } finally {
    for (const d of dirs) closeSync(d.fd);
    removeTree(linkPool);
  }
  return used;
}
