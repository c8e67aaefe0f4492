import { isAbsolute } from 'node:path';

/** Directories every command can rely on, whatever PATH the parent process had. */
export const SAFE_PATH_DIRS: readonly string[] = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/**
 * PATH for sandboxed commands: the parent's absolute entries first (so `python3` is the one the
 * user installed their test deps into), then the safe defaults that are missing. Relative entries
 * (`.`, empty) are dropped: they would make lookup depend on the current directory.
 */
export function sandboxPath(hostPath = ''): string {
  const dirs: string[] = [];
  for (const d of [...hostPath.split(':'), ...SAFE_PATH_DIRS]) {
    if (d && isAbsolute(d) && !dirs.includes(d)) dirs.push(d);
  }
  return dirs.join(':');
}

/** Where a command's private, empty home and temp directories are. */
export interface ScratchDirs {
  home: string;
  tmp: string;
}

/**
 * The complete environment of a shell or check command, built from scratch (an allow-list, never
 * a copy of the parent's) so no API key, token or secret can leak in. HOME and TMPDIR are fresh
 * empty directories; the fixed locale, zone and hash seed make output reproducible.
 */
export function buildSandboxEnv(scratch: ScratchDirs, hostPath?: string): Record<string, string> {
  return {
    PATH: sandboxPath(hostPath),
    HOME: scratch.home,
    TMPDIR: scratch.tmp,
    TZ: 'UTC',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    PYTHONHASHSEED: '0',
    PYTHONDONTWRITEBYTECODE: '1',
  };
}
