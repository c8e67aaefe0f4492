import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { sandboxPath } from './sandbox-env.ts';

/** The namespaces and mounts shared by the probe and real runs; one place to change them. */
const ISOLATION = ['--unshare-net', '--unshare-pid', '--die-with-parent'] as const;

function findOnPath(name: string, path: string): string | null {
  for (const dir of path.split(':')) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** Runs the binary once with the isolation flags: it can be installed yet unusable (no user namespaces). */
function works(bwrap: string): Promise<boolean> {
  return new Promise((resolveWorks) => {
    const child = spawn(bwrap, ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', ...ISOLATION, '--', '/bin/true'], {
      stdio: 'ignore',
      env: {},
    });
    child.on('error', () => resolveWorks(false));
    child.on('exit', (code) => resolveWorks(code === 0));
  });
}

const probes = new Map<string, Promise<string | null>>();

/**
 * Absolute path of a working `bwrap`, or null. Probed once per PATH and cached for the process,
 * since spawning the probe costs a few milliseconds and the answer cannot change mid-run.
 */
export function probeBwrap(hostPath?: string): Promise<string | null> {
  const path = sandboxPath(hostPath);
  let probe = probes.get(path);
  if (!probe) {
    const found = findOnPath('bwrap', path);
    probe = found ? works(found).then((ok) => (ok ? found : null)) : Promise.resolve(null);
    probes.set(path, probe);
  }
  return probe;
}

/**
 * bwrap arguments that run `argv` with a read-only root, the workspace as the only writable
 * place, a private /tmp, no network and its own pid namespace. `/tmp` is mounted before the
 * workspace so a workspace that lives under /tmp is not hidden by it. `hide` must not contain the workspace.
 */
export function bwrapArgs(workspace: string, argv: readonly string[], hide: readonly string[] = []): string[] {
  return [
    '--ro-bind', '/', '/',
    '--dev', '/dev',
    '--proc', '/proc',
    '--tmpfs', '/tmp',
    // Hidden paths (e.g. the workloads folder with its check/ files) become empty directories.
    ...hide.flatMap((p) => ['--tmpfs', p]),
    '--bind', workspace, workspace,
    ...ISOLATION,
    '--chdir', workspace,
    '--',
    ...argv,
  ];
}
