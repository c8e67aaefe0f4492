// Running a test's probe as a normal user when the tests run as root: RLIMIT_NPROC never binds
// root, and containment must hold for both.
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

/** tsx's CLI, to run a probe script in a child process. */
export const TSX_CLI = createRequire(import.meta.url).resolve('tsx/cli');

/** A user other than root that a child may run as: `nobody` when /etc/passwd has it. */
export function unprivilegedUser(): { uid: number; gid: number } | null {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('nobody:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  return uid && gid && Number(uid) !== 0 ? { uid: Number(uid), gid: Number(gid) } : null;
}

/** True when any user may read `file` (every directory above it searchable by others): the child runs as nobody. */
export function readableByOthers(file: string): boolean {
  let p = realpathSync(file);
  if ((statSync(p).mode & 0o004) === 0) return false;
  while (p !== dirname(p)) {
    p = dirname(p);
    if ((statSync(p).mode & 0o001) === 0) return false;
  }
  return true;
}

/** Why a probe cannot run as another user here, or null when it can (the tests run as root, nobody exists and can read `scripts`). */
export function otherUserSkipReason(scripts: readonly string[]): string | null {
  if (process.getuid?.() !== 0) return 'the tests already run as a normal user (the cases above)';
  if (!unprivilegedUser()) return 'no unprivileged user (nobody) in /etc/passwd to run the probe as';
  if (![TSX_CLI, ...scripts].every(readableByOthers)) return 'the checkout or node_modules is not readable by other users (a directory above it lacks o+x), so nobody cannot run the probe';
  return null;
}
