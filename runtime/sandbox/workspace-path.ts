import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, posix, relative, resolve, sep } from 'node:path';
import { ToolError } from '../tools/tool.ts';

/** Symlink hops followed before a path is treated as a loop (Linux's own limit is 40). */
const MAX_LINK_HOPS = 40;

/** True when `p` is `root` or lies beneath it. Both must be absolute and normalized. */
export function isWithin(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** The workspace-relative form of an absolute path inside `rootReal`, with `/` separators; `.` for the root. */
export function workspaceRelative(rootReal: string, abs: string): string {
  const rel = relative(rootReal, abs);
  return rel === '' ? '.' : rel.split(sep).join('/');
}

/**
 * Real path of `p`, tolerating a missing tail: a path that does not exist yet resolves through
 * its nearest existing ancestor, and a dangling symlink through its target, so a write can never
 * follow a link whose target is outside even when that target does not exist.
 */
function realpathLenient(p: string, hops = 0): string {
  try {
    return realpathSync(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
  }
  let isLink = false;
  try {
    isLink = lstatSync(p).isSymbolicLink();
  } catch {
    // does not exist: fall through to the parent
  }
  if (isLink) {
    if (hops >= MAX_LINK_HOPS) throw new ToolError('execution_error', 'too many levels of symbolic links');
    return realpathLenient(resolve(dirname(p), readlinkSync(p)), hops + 1);
  }
  const parent = dirname(p);
  if (parent === p) return p;
  return join(realpathLenient(parent, hops), basename(p));
}

/**
 * Resolves a model-supplied path inside the workspace to an absolute real path, or throws
 * `ToolError('permission_denied')` for an absolute path, a path that normalizes outside the root,
 * or one that leaves the root through a symlink. Messages name the path as given, never the root.
 */
export function resolveInWorkspace(root: string, userPath: string): string {
  const shown = scrubWorkspacePaths(userPath, root);
  if (userPath.includes('\0')) throw new ToolError('permission_denied', `invalid path '${shown.replace(/\0/g, '\\0')}'`);
  const rootReal = realpathSync(root);
  if (isAbsolute(userPath) || /^[A-Za-z]:[\\/]/.test(userPath)) {
    const abs = resolve(userPath);
    const base = [rootReal, resolve(root)].find((r) => isWithin(r, abs));
    // Inside the workspace: suggest the relative form rather than echo the root.
    const hint = base ? `use '${workspaceRelative(base, abs)}'` : `'${shown}' is not allowed; use a path`;
    throw new ToolError('permission_denied', `absolute paths are refused: ${hint} relative to the workspace`);
  }
  const lexical = resolve(rootReal, userPath);
  if (!isWithin(rootReal, lexical)) {
    throw new ToolError('permission_denied', `path '${shown}' is outside the workspace`);
  }
  const real = realpathLenient(lexical);
  if (!isWithin(rootReal, real)) {
    throw new ToolError('permission_denied', `path '${shown}' leads outside the workspace through a symlink`);
  }
  return real;
}

/** `userPath` normalized for messages: `./a/../b` → `b`, the root → `.`. */
export function displayPath(userPath: string): string {
  const n = posix.normalize(userPath.split(sep).join('/'));
  return n.endsWith('/') && n !== '/' ? n.slice(0, -1) : n;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Replaces the workspace's absolute location (as given and as its real path) in `text` with a
 * relative form (`<root>/a` → `./a`, `<root>` → `.`), so tool output is identical run to run
 * whatever temp directory the workspace copy lives in.
 */
export function scrubWorkspacePaths(text: string, root: string): string {
  const forms = new Set<string>([resolve(root)]);
  try {
    forms.add(realpathSync(root));
  } catch {
    // a root that is gone has only its given form
  }
  let out = text;
  // Longest first, so `/private/tmp/x` is not half-replaced by `/tmp/x`.
  for (const form of [...forms].sort((a, b) => b.length - a.length)) {
    if (form === '/' || !out.includes(form)) continue;
    out = out.replace(new RegExp(`${escapeRegExp(form)}(?![\\w.-])(/)?`, 'g'), (_m, slash?: string) => (slash ? './' : '.'));
  }
  return out;
}
