import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { ETC_ENTRIES, findOnPath, PROC_READ_ONLY, SYSTEM_DIRS } from './bwrap.ts';
import { DEV_NODES } from './dev-nodes.ts';
import { defaultResourceLimits } from './resource-limits.ts';
import { isWithin } from './workspace-path.ts';
import { sandboxPath } from './sandbox-env.ts';
import { shellQuote } from './shell-quote.ts';

/**
 * The second sandbox tier, for machines without a working bubblewrap: util-linux `unshare`.
 * The command gets its own pid namespace with a fresh /proc (no harness process is visible), its
 * own network namespace (a loopback that is down: no host listener is reachable), IPC and UTS
 * namespaces, and a mount namespace in which a setup script makes every mount read-only, covers
 * the user's home, the temp directories, /run, the directories the caller hides, all of /etc but
 * a few start-up entries and all of /dev but the harmless devices with empty tmpfs, and binds back only what the command needs (the
 * workspace and its own scratch dirs read-write). The command then runs in a nested
 * user namespace, where those mounts are locked: even as (mapped) root it cannot unmount them.
 */

/** Namespaces of the outer unshare; `--kill-child` takes the whole pid namespace down with it. */
const NAMESPACES = ['--pid', '--fork', '--kill-child', '--mount-proc', '--mount', '--net', '--ipc', '--uts', '--propagation', 'private'] as const;

/**
 * Directories always covered: other users' and the harness's homes, shared temp, runtime state
 * (docker's /run/secrets), and /dev, whose disks a root command could otherwise read raw.
 */
const ALWAYS_HIDDEN = ['/root', '/home', '/tmp', '/var/tmp', '/dev', '/run'] as const;

/**
 * The top-level entries of `/` (given as absolute paths) that an unshare sandbox leaves readable, read-only,
 * besides the system directories commands run from and the fresh /proc: neither always covered nor the
 * harness's home or temp dir. One only partly covered (the workloads folder inside it) is named too.
 */
export function unshareReadable(rootEntries: readonly string[], home: string, tmp: string): string[] {
  const covered = new Set<string>([...ALWAYS_HIDDEN, '/etc', '/proc', ...SYSTEM_DIRS, home, tmp]);
  return rootEntries.filter((e) => !covered.has(e)).sort();
}

/** unshareReadable on this machine: the root as listed now, this process's home and temp dir ([] when / cannot be listed). */
export function unshareReadableHere(): string[] {
  try {
    return unshareReadable(readdirSync('/').map((e) => `/${e}`), homedir(), tmpdir());
  } catch {
    return [];
  }
}

/** What a fresh /dev holds besides DEV_NODES: a private shm, the fd links, a private devpts where allowed. */
function devExtras(stage: string, mount: string): string[] {
  const at = (p: string) => shellQuote(join(stage, p));
  return [
    `mkdir -m 1777 ${at('shm')}`,
    `ln -s /proc/self/fd ${at('fd')}; ln -s /proc/self/fd/0 ${at('stdin')}; ln -s /proc/self/fd/1 ${at('stdout')}; ln -s /proc/self/fd/2 ${at('stderr')}`,
    `mkdir ${at('pts')}; ${mount} -n -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts ${at('pts')} 2>/dev/null && ln -s pts/ptmx ${at('ptmx')} || true`,
  ];
}

/** A directory or file that stays visible inside a hidden directory. */
export interface KeptPath {
  path: string;
  writable: boolean;
}

/** What an unshare sandbox covers and keeps. */
export interface UnshareMounts {
  /** The working directory, kept read-write. */
  workspace: string;
  /** More read-write directories (the command's scratch home and temp, a check's report dir). */
  writable?: readonly string[];
  /** More read-only directories (a check's report hook). */
  readable?: readonly string[];
  /** More directories to cover with an empty tmpfs (the workloads folder, the harness's checkout). */
  hide?: readonly string[];
  /** The harness's home directory; default os.homedir(). Covered like /root and /home. */
  home?: string;
  /** An empty directory outside every hidden one, or inside only the one processed last: the setup script's staging mount point. */
  stage: string;
  /** Size of the tmpfs covering /tmp (and the host's temp dir), which the command may write; default `tmp_max_bytes` of the shipped bounds. */
  tmpMaxBytes?: number;
}

/** Size of the other covers: writable by the command's mapped root, so bounded too. */
const COVER_TMPFS_BYTES = 64 * 1024 * 1024;

function realOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null; // absent: nothing to hide or keep
  }
}

/**
 * The directories to cover (absolute, resolved paths), outermost only: a hidden directory inside
 * another is covered by it, and one equal to or inside a kept writable path (or `/` itself) is
 * dropped, so the workspace can never be hidden. Sorted, except that the one containing the
 * staging point goes last, since covering it removes the stage.
 */
export function planHidden(candidates: readonly string[], kept: readonly string[], stage: string): string[] {
  const unique = [...new Set(candidates.filter((p) => p !== '/'))];
  const usable = unique.filter((h) => !kept.some((k) => isWithin(k, h)));
  const outer = usable.filter((h) => !usable.some((o) => o !== h && isWithin(o, h))).sort();
  return [...outer.filter((h) => !isWithin(h, stage)), ...outer.filter((h) => isWithin(h, stage))];
}

/**
 * The setup script, run as pid 1 of the new namespaces: remount everything read-only; for each
 * hidden directory, mount a tmpfs at the stage, recreate in it the kept paths that lie inside that
 * directory and bind them back (writable ones read-write), then move the tmpfs over the directory;
 * bind the writable paths outside every cover back read-write; bind /proc's kernel knobs read-only.
 * Last it execs a nested `unshare --user --map-root-user --mount`, which locks every mount, and in
 * it `setpriv`, which drops every capability, and so the command.
 */
export function setupScript(m: UnshareMounts, tools: UnshareTools): string {
  const kept: KeptPath[] = [
    { path: m.workspace, writable: true },
    ...(m.writable ?? []).map((path) => ({ path, writable: true })),
    ...(m.readable ?? []).map((path) => ({ path, writable: false })),
    ...ETC_ENTRIES.map((e) => ({ path: `/etc/${e}`, writable: false })),
    // Read-only binds: a root command could otherwise chmod the host's /dev/null (dev-nodes.ts).
    ...DEV_NODES.map((d) => ({ path: `/dev/${d}`, writable: false })),
  ]
    // Not resolved: /etc/localtime is a link out of /etc, yet must appear at its own path.
    .filter((k) => existsSync(k.path))
    .sort((a, b) => a.path.length - b.path.length);
  const candidates = [...ALWAYS_HIDDEN, m.home ?? homedir(), tmpdir(), '/etc', ...(m.hide ?? [])].map(realOrNull).filter((p): p is string => p !== null);
  const hidden = planHidden(candidates, kept.filter((k) => k.writable).map((k) => k.path), m.stage);
  const q = shellQuote;
  const mount = q(tools.mount);
  const lines = [
    'set -e',
    // Every mount read-only first (the root must be; others as they allow), but the fresh /proc
    // and /dev (device nodes ignore it): otherwise a root command could rewrite the system's
    // Python, and so every later check. Mount points come octal-escaped; printf %b decodes them.
    `${mount} -n -o remount,bind,ro /`,
    `while read -r _ _ _ _ mp _; do mp=$(printf '%b' "$mp"); case "$mp" in /|/proc|/proc/*|/dev|/dev/*) continue;; esac; ${mount} -n -o remount,bind,ro "$mp" 2>/dev/null || true; done < /proc/self/mountinfo`,
    // The fresh /proc stays writable, but its kernel knobs must not (a uid-0 command writes a
    // sysctl whatever its capabilities): each bound read-only over itself, locked below.
    ...PROC_READ_ONLY.map((e) => `if [ -e /proc/${e} ]; then ${mount} -n --bind /proc/${e} /proc/${e}; ${mount} -n -o remount,bind,ro /proc/${e}; fi`),
  ];
  const bindBack = (from: string, at: string, writable: boolean) => {
    lines.push(`${mount} -n --bind ${q(from)} ${q(at)}`);
    lines.push(`${mount} -n -o remount,bind,${writable ? 'rw' : 'ro'} ${q(at)}`);
  };
  const tmpDirs = new Set(['/tmp', tmpdir()].map(realOrNull));
  const tmpBytes = m.tmpMaxBytes ?? defaultResourceLimits().sandbox.tmp_max_bytes;
  for (const h of hidden) {
    lines.push(`${mount} -n -t tmpfs -o mode=0755,size=${tmpDirs.has(h) ? tmpBytes : COVER_TMPFS_BYTES} metis-hidden ${q(m.stage)}`);
    if (h === '/dev') lines.push(...devExtras(m.stage, mount));
    for (const k of kept.filter((k) => isWithin(h, k.path) && k.path !== h)) {
      const at = join(m.stage, relative(h, k.path));
      const isDir = statSync(k.path).isDirectory();
      lines.push(isDir ? `mkdir -p ${q(at)}` : `mkdir -p ${q(dirname(at))}; : > ${q(at)}`);
      bindBack(k.path, at, k.writable);
    }
    lines.push(`${mount} -n --move ${q(m.stage)} ${q(h)}`);
  }
  // Writable paths outside every cover sit on the now read-only mounts: bind them onto themselves,
  // writable; then read-only ones outside every cover again, should one lie inside a writable one.
  const uncovered = kept.filter((k) => !hidden.some((h) => isWithin(h, k.path)));
  for (const k of uncovered.filter((k) => k.writable)) bindBack(k.path, k.path, true);
  for (const k of uncovered.filter((k) => !k.writable && uncovered.some((w) => w.writable && isWithin(w.path, k.path)))) bindBack(k.path, k.path, false);
  // The inherited cwd still points into the covered tree (its `..` would lead there): look it up anew.
  lines.push(`cd ${q(m.workspace)}`);
  // setpriv empties every capability set (the bounding set too, so exec cannot refill it) and sets
  // no_new_privs: the command holds no capability, even in its own user namespace.
  lines.push(`exec ${q(tools.unshare)} --user --map-root-user --mount -- ${q(tools.setpriv)} ${DROP_CAPS.join(' ')} -- "$@"`);
  return lines.join('\n');
}

/** setpriv arguments that leave the command no capability and no way to gain one (setuid files included). */
export const DROP_CAPS = ['--inh-caps=-all', '--ambient-caps=-all', '--bounding-set=-all', '--no-new-privs'] as const;

/** Arguments to the outer `unshare` that run `argv` in the workspace with everything above (spawn it with cwd = workspace). */
export function unshareArgs(m: UnshareMounts, tools: UnshareTools, argv: readonly string[], asRoot = process.getuid?.() === 0): string[] {
  // Not root: a user namespace of our own grants the mount rights (where user namespaces are allowed).
  const asUser = asRoot ? [] : ['--user', '--map-root-user'];
  return [...NAMESPACES, ...asUser, '--', '/bin/sh', '-c', setupScript(m, tools), 'metis-sandbox', ...argv];
}

/** The binaries the tier needs (all util-linux). */
export interface UnshareTools {
  unshare: string;
  mount: string;
  /** Drops the command's capabilities; without it the tier is not offered. */
  setpriv: string;
}

/** Runs the real setup once (covering, binding, nested namespace) with /bin/true: unshare can be installed yet unusable. */
function works(tools: UnshareTools, path: string): Promise<boolean> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'metis-unshare-probe-')));
  const ws = join(dir, 'ws');
  const stage = join(dir, 'stage');
  mkdirSync(ws);
  mkdirSync(stage);
  return new Promise((resolveWorks) => {
    const done = (ok: boolean) => {
      rmSync(dir, { recursive: true, force: true });
      resolveWorks(ok);
    };
    const child = spawn(tools.unshare, unshareArgs({ workspace: ws, stage }, tools, ['/bin/sh', '-c', 'test -d "$0"', ws]), { stdio: 'ignore', env: { PATH: path }, cwd: ws });
    child.on('error', () => done(false));
    child.on('exit', (code) => done(code === 0));
  });
}

const probes = new Map<string, Promise<UnshareTools | null>>();

/** The `unshare`, `mount` and `setpriv` binaries when the tier works here, else null; probed once per PATH. */
export function probeUnshare(hostPath?: string): Promise<UnshareTools | null> {
  const path = sandboxPath(hostPath);
  let probe = probes.get(path);
  if (!probe) {
    const unshare = findOnPath('unshare', path);
    const mount = findOnPath('mount', path);
    const setpriv = findOnPath('setpriv', path);
    probe = unshare && mount && setpriv ? works({ unshare, mount, setpriv }, path).then((ok) => (ok ? { unshare, mount, setpriv } : null)) : Promise.resolve(null);
    probes.set(path, probe);
  }
  return probe;
}
