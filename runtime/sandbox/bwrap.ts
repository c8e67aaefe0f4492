import { spawn } from 'node:child_process';
import { accessSync, constants, lstatSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { readOnlyDevNodesScript } from './dev-nodes.ts';
import { defaultResourceLimits } from './resource-limits.ts';
import { sandboxPath } from './sandbox-env.ts';

/**
 * Namespaces, lifetime flags and the capability drop shared by the probe and real runs; one place
 * to change them. `--cap-drop ALL`: as root, bwrap otherwise leaves the command every capability.
 */
const ISOLATION = ['--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL'] as const;

/**
 * The writable kernel knobs under /proc, made read-only in both confining tiers: a command running
 * as uid 0 may write a sysctl whatever its capabilities (the kernel checks the file mode against
 * the uid), so `kernel.core_pattern` could run agent code as host root and `sysrq-trigger` reboot.
 */
export const PROC_READ_ONLY = ['sys', 'sysrq-trigger', 'irq', 'bus', 'fs'] as const;

/** bwrap arguments that bind each existing PROC_READ_ONLY entry read-only over the fresh /proc. */
function procReadOnly(): string[] {
  return PROC_READ_ONLY.flatMap((e) => ['--ro-bind-try', `/proc/${e}`, `/proc/${e}`]);
}

/** System directories a build needs, bound read-only (or recreated as the symlinks they are). */
export const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'] as const;

/**
 * The few /etc entries programs read at start-up (dynamic linker, users, zone, interpreter
 * alternatives); the rest of /etc (credentials, service configs) stays out.
 */
export const ETC_ENTRIES = [
  'ld.so.cache', 'ld.so.conf', 'ld.so.conf.d', 'alternatives', 'passwd', 'group', 'nsswitch.conf',
  'localtime', 'timezone', 'mime.types', 'ssl/certs', 'ca-certificates', 'python3', 'python3.11', 'python3.12', 'python3.13',
] as const;

/** The first executable `name` on `path` (a PATH string), or null. */
export function findOnPath(name: string, path: string): string | null {
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

/** Mount arguments for the system directories: a usr-merged `/bin -> usr/bin` stays a symlink. */
function systemMounts(): string[] {
  const out: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    let link: string | null = null;
    try {
      const st = lstatSync(dir);
      if (st.isSymbolicLink()) link = readlinkSync(dir);
      else if (!st.isDirectory()) continue;
    } catch {
      continue; // absent on this system
    }
    out.push(...(link !== null ? ['--symlink', link, dir] : ['--ro-bind', dir, dir]));
  }
  for (const e of ETC_ENTRIES) out.push('--ro-bind-try', `/etc/${e}`, `/etc/${e}`);
  return out;
}

/** Runs the binary once with the real isolation: it can be installed yet unusable (no user namespaces). */
function works(bwrap: string): Promise<boolean> {
  return new Promise((resolveWorks) => {
    const child = spawn(bwrap, [...systemMounts(), '--dev', '/dev', '--proc', '/proc', ...procReadOnly(), ...ISOLATION, '--', '/bin/true'], {
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

/** What a bwrap sandbox may see beyond the system directories. */
export interface BwrapMounts {
  /** The working directory, bound read-write at its real path. */
  workspace: string;
  /** More read-write directories at their own paths (the command's empty home and temp dir, a check's report dir). */
  writable?: readonly string[];
  /** More read-only directories at their own paths (a check's report hook). */
  readable?: readonly string[];
  /** Directories made invisible (empty tmpfs), should one lie inside a bound system directory. */
  hide?: readonly string[];
  /** Size of the private /tmp (a tmpfs, held in memory); default `tmp_max_bytes` of the shipped bounds. */
  tmpMaxBytes?: number;
}

/** Size of each tmpfs that hides a directory: it only holds the mount points of later binds. */
const HIDE_TMPFS_BYTES = 1024 * 1024;

/**
 * bwrap arguments that run `argv` seeing only the system directories (read-only), a fresh /dev,
 * /proc of its own pid namespace and an empty /tmp of bounded size, plus the workspace and `writable` read-write:
 * not the host's root, so home directories, other checkouts and other workloads' check/ folders
 * do not exist inside. All namespaces are unshared (no network); it dies with its parent; the
 * command has no capabilities and /proc's kernel knobs are read-only.
 */
export function bwrapArgs(m: BwrapMounts, argv: readonly string[]): string[] {
  return [
    ...systemMounts(),
    '--dev', '/dev',
    '--proc', '/proc',
    ...procReadOnly(),
    // Before the binds below, so a workspace under /tmp is not hidden by it. Sized: a tmpfs is
    // memory, by default half the host's RAM.
    '--size', String(m.tmpMaxBytes ?? defaultResourceLimits().sandbox.tmp_max_bytes), '--tmpfs', '/tmp',
    ...(m.hide ?? []).flatMap((p) => ['--size', String(HIDE_TMPFS_BYTES), '--tmpfs', p]),
    ...(m.writable ?? []).flatMap((p) => ['--bind', p, p]),
    ...(m.readable ?? []).flatMap((p) => ['--ro-bind', p, p]),
    '--bind', m.workspace, m.workspace,
    ...ISOLATION,
    '--chdir', m.workspace,
    '--',
    ...argv,
  ];
}

/** util-linux binaries that protect a root harness's device nodes under bwrap. */
export interface DevGuardTools {
  unshare: string;
  mount: string;
}

/** The guard's binaries on the sandbox PATH, or null when either is missing. */
export function findDevGuardTools(hostPath?: string): DevGuardTools | null {
  const path = sandboxPath(hostPath);
  const unshare = findOnPath('unshare', path);
  const mount = findOnPath('mount', path);
  return unshare && mount ? { unshare, mount } : null;
}

/**
 * The program and arguments that run bwrap with `args` for a root harness: first, in a private mount
 * namespace of the same process (unshare without --fork execs, so bwrap keeps the harness as its
 * parent), the host's device nodes are bound read-only over themselves; bwrap's `--dev` then binds
 * those, and a uid-0 command cannot chmod or chown the host's /dev/null (dev-nodes.ts).
 */
export function guardedBwrapCommand(tools: DevGuardTools, bwrap: string, args: readonly string[]): [string, string[]] {
  const script = `set -e\n${readOnlyDevNodesScript(tools.mount)}\nexec "$@"`;
  return [tools.unshare, ['--mount', '--propagation', 'private', '--', '/bin/sh', '-c', script, 'metis-dev-guard', bwrap, ...args]];
}
