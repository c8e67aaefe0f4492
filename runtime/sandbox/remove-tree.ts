import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, opendirSync, renameSync, rmdirSync, unlinkSync, type Dirent } from 'node:fs';
import { join } from 'node:path';

const code = (e: unknown) => (e as NodeJS.ErrnoException).code;

/** Runs `op`; on a permission refusal makes `dir` ours to change (the agent may have chmod'ed it 000) and runs it once more. */
function withAccess<T>(dir: string, op: () => T): T {
  try {
    return op();
  } catch (e) {
    if (code(e) !== 'EACCES' && code(e) !== 'EPERM') throw e;
    chmodSync(dir, 0o700);
    return op();
  }
}

/**
 * Calls `each` on every entry of `dir` until a pass over it finds none left: entries removed or
 * added while it is read may or may not be listed (POSIX leaves that open), so it reads again.
 * One directory handle at a time, read in small batches, so a million entries cost no memory.
 */
function drain(dir: string, each: (entry: Dirent) => void): void {
  for (;;) {
    const handle = withAccess(dir, () => opendirSync(dir));
    let seen = 0;
    try {
      for (let e = handle.readSync(); e !== null; e = handle.readSync()) {
        seen += 1;
        each(e);
      }
    } finally {
      handle.closeSync();
    }
    if (seen === 0) return;
  }
}

/** Removes a non-directory; a name whose type the listing did not give is tried as a file first. */
function unlinkEntry(dir: string, e: Dirent): boolean {
  if (e.isDirectory()) return false;
  try {
    withAccess(dir, () => unlinkSync(join(dir, e.name)));
    return true;
  } catch (err) {
    if (code(err) === 'ENOENT') return true;
    if (code(err) === 'EISDIR') return false;
    throw err;
  }
}

/**
 * Removes `target` and everything under it, however deep, with every path it passes to the kernel
 * a few hundred bytes long: each directory is emptied while it sits directly under `target`, and
 * its own subdirectories are first renamed up to `target` under fresh names. So no path nears
 * PATH_MAX (`rmSync` throws ENAMETOOLONG on a 3,000-deep tree of 200-character names) and no
 * descriptor is held per level. Directories the agent made unreadable or unwritable are opened
 * up first. A missing `target` is no error; anything else that cannot be removed throws.
 */
export function removeTree(target: string): void {
  let st;
  try {
    st = lstatSync(target);
  } catch (e) {
    if (code(e) === 'ENOENT') return;
    throw e;
  }
  if (!st.isDirectory()) {
    unlinkSync(target);
    return;
  }
  // Fresh names for the directories moved up; a clash with a name the agent chose is skipped.
  const prefix = `.metis-rm-${randomBytes(4).toString('hex')}-`;
  let next = 0;
  const moveUp = (from: string) => {
    for (;;) {
      try {
        renameSync(from, join(target, `${prefix}${next++}`));
        return;
      } catch (e) {
        if (!['EEXIST', 'ENOTEMPTY', 'ENOTDIR', 'EISDIR'].includes(code(e) ?? '')) throw e;
      }
    }
  };
  drain(target, (top) => {
    if (unlinkEntry(target, top)) return;
    const dir = join(target, top.name);
    drain(dir, (child) => {
      if (!unlinkEntry(dir, child)) withAccess(dir, () => moveUp(join(dir, child.name)));
    });
    withAccess(target, () => rmdirSync(dir));
  });
  rmdirSync(target);
}
