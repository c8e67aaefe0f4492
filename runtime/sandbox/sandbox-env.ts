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

/**
 * The complete environment of a shell or check command, built from scratch so no API key, token
 * or secret of the parent can leak in; the fixed locale, zone and hash seed make output reproducible.
 */
export function buildSandboxEnv(workspaceRoot: string, hostPath?: string): Record<string, string> {
  return {
    PATH: sandboxPath(hostPath),
    HOME: workspaceRoot,
    TZ: 'UTC',
    PYTHONHASHSEED: '0',
    LC_ALL: 'C.UTF-8',
    PYTHONDONTWRITEBYTECODE: '1',
  };
}
