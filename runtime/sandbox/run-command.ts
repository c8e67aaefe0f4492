import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../core/logger.ts';
import { bwrapArgs, findDevGuardTools, findOnPath, guardedBwrapCommand, probeBwrap, type DevGuardTools } from './bwrap.ts';
import { cgroupParent, createCommandCgroups, type CommandCgroups, type Controller } from './command-cgroup.ts';
import { descendantTasks } from './sandbox-tasks.ts';
import { defaultResourceLimits, diskLimitMessage, diskUsage, diskUse, treeBounds, memoryLimitMessage, perProcessMemoryRefusal, processLimitMessage, prlimitArgs, FORK_REFUSED, type SandboxLimits } from './resource-limits.ts';
import { probeUnshare, unshareArgs, unshareReadableHere, type UnshareTools } from './unshare.ts';
import { createOutputCollector, DEFAULT_MAX_OUTPUT_BYTES } from './output-cap.ts';
import { buildSandboxEnv, sandboxPath } from './sandbox-env.ts';
import { removeTree } from './remove-tree.ts';
import { treeLimitMessage } from './tree-walk.ts';

/**
 * Which confinement to use: `auto` picks bwrap when it works here, else unshare (namespaces via
 * util-linux, see unshare.ts), else none (with a warning). `bwrap` and `unshare` demand that tier.
 */
export type SandboxMode = 'auto' | 'bwrap' | 'unshare' | 'none';

/** The tier a command actually ran in. */
export type SandboxTier = 'bwrap' | 'unshare' | 'none';

/** How to run one shell or check command. */
export interface RunCommandOptions {
  /** The workspace copy: the working directory, and (with `writable`) the only writable place under bwrap. */
  cwd: string;
  timeoutMs: number;
  /** Cap on merged stdout+stderr; default 16 KiB. */
  maxOutputBytes?: number;
  logger: Logger;
  signal?: AbortSignal;
  /** Default `auto`. */
  sandbox?: SandboxMode;
  /** The parent process's PATH, read at the edge; its absolute entries precede the safe defaults. */
  hostPath?: string;
  /**
   * Absolute directories made invisible under bwrap or unshare (mounted as empty tmpfs), such as
   * the workloads folder whose check/ files the agent must not read. Without either they cannot be hidden.
   */
  hide?: readonly string[];
  /** More directories the command may write under bwrap (a check's report directory). */
  writable?: readonly string[];
  /** More directories the command may read under bwrap (a check's report hook). */
  readable?: readonly string[];
  /**
   * Variables added to the allow-listed environment (a check's report location). They cannot
   * replace the allow-listed ones, so no caller can re-open the harness's environment.
   */
  extraEnv?: Readonly<Record<string, string>>;
  /** The harness user's home, covered under unshare (bwrap shows no home at all); default os.homedir(). */
  home?: string;
  /** Finds a working bwrap; default probeBwrap(hostPath). Tests pass one that finds none to take the no-bwrap path. */
  findBwrap?: () => Promise<string | null>;
  /** Finds a working unshare tier; default probeUnshare(hostPath). */
  findUnshare?: () => Promise<UnshareTools | null>;
  /** Whether the harness runs as root (then `auto` refuses rather than run unconfined); default isRoot(). */
  asRoot?: boolean;
  /** Disk, process and memory bounds; default the shipped ones (runtime/data/resource-limits.json). */
  limits?: SandboxLimits;
  /** Skips every resource bound: only for measuring what they cost (scripts/perf/sandbox-overhead.ts); default resourceBoundsOff(). */
  unbounded?: boolean;
  /** Appended to the message of the SandboxUnavailableError thrown when a demanded tier cannot be had. */
  unavailableHint?: string;
}

/** What a command did. `exitCode` is null when it was killed (timeout, cancel, signal). */
export interface RunCommandResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** stdout and stderr merged in the order written, capped with a `…[truncated N bytes]` marker. */
  output: string;
  truncated: boolean;
  timedOut: boolean;
  cancelled: boolean;
  sandbox: SandboxTier;
  /** Set when the command ran into a resource bound (the group was killed): the message names it. */
  limit: string | null;
  /** The bound `limit` names. */
  limitKey: keyof SandboxLimits | null;
}

/** Raised when `sandbox: 'bwrap'` or `'unshare'` is demanded but that tier is missing or unusable. */
export class SandboxUnavailableError extends Error {
  constructor(hint = '', tier: 'bwrap' | 'unshare' = 'bwrap') {
    const what = tier === 'bwrap' ? 'bubblewrap (bwrap)' : 'util-linux unshare';
    super(`${what} was required (sandbox: ${tier}) but is not installed or cannot create namespaces${hint ? `; ${hint}` : ''}`);
    this.name = 'SandboxUnavailableError';
  }
}

/**
 * Why `auto` refuses commands for a root harness when neither confining tier works: unconfined, a
 * root command holds every capability and writes the host's kernel settings.
 */
export const ROOT_UNCONFINED_REFUSAL =
  'bench runs as root and neither bubblewrap nor util-linux unshare (with setpriv) can confine commands here, so run_shell and hidden checks are refused ' +
  '(a root command could write the host kernel settings); install bubblewrap (apt-get install bubblewrap), run bench as a normal user, ' +
  'or set METIS_SANDBOX=none (or pass --unsandboxed) to run them unconfined knowingly';

/** Raised when `auto` finds no confining tier for a root harness (see ROOT_UNCONFINED_REFUSAL). */
export class RootUnconfinedError extends Error {
  constructor() {
    super(ROOT_UNCONFINED_REFUSAL);
    this.name = 'RootUnconfinedError';
  }
}

/** True when this process runs as root: then `auto` never falls back to the none tier. */
export function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/** The WARN text logged when commands run without bwrap. */
export const NO_SANDBOX_WARNING = 'running without bubblewrap (bwrap): run_shell and checks are confined by cwd, a scrubbed environment and an empty home only';

/** The WARN text logged when commands run in the unshare tier: one line naming the top-level entries of / left readable. */
export function unshareSandboxWarning(readable: readonly string[]): string {
  return `sandboxed with unshare (no bubblewrap): run_shell and checks run in their own pid, mount and network namespaces with the homes, temp dirs, /run, most of /etc and the workloads covered; still readable, read-only: ${readable.length ? readable.join(', ') : 'nothing beyond the system directories'}`;
}

// Once per logger: a process has one logger in practice, and tests can still observe the warning.
const warned = new WeakMap<Logger, Set<string>>();

function warnOnce(logger: Logger, tier: SandboxTier, msg: string, requested: SandboxMode, topic: string = tier): void {
  const seen = warned.get(logger) ?? new Set<string>();
  warned.set(logger, seen);
  if (seen.has(topic)) return;
  seen.add(topic);
  logger.log('warn', msg, { sandbox: tier, requested });
}

/**
 * How far below max_processes the sandbox's task count may be when a refused fork is reported: a
 * few may have exited between the refusal and the count, and bwrap's own init is one of them.
 */
const PROCESS_COUNT_SLACK = 4;

/** How often the workspace's disk use, entry count and depth are measured while a command runs. */
const DISK_POLL_MS = 500;

/** The WARN text logged when a root harness's bwrap cannot bind the device nodes read-only. */
export const NO_DEV_GUARD_WARNING = 'unshare or mount (util-linux) not found: a command run as root under bwrap could change the mode of the host\'s /dev/null and other device nodes';

/** The WARN text logged when prlimit is missing: memory, file-size and process bounds are not applied. */
export const NO_PRLIMIT_WARNING = 'prlimit (util-linux) not found: commands run without the memory, file-size and process-count bounds';

/** The WARN text logged when a root harness has no pids cgroup: its commands' process count is unbounded. */
export const NO_PIDS_CGROUP_WARNING =
  'bench runs as root and no pids cgroup can be made here (/sys/fs/cgroup not writable): the process-count bound is not applied (RLIMIT_NPROC never binds host root); run bench as a normal user to have it';

/** The WARN text logged when a root harness has no memory cgroup: its commands' memory is bounded per process only (as for a normal user, whose hits say so). */
export const NO_MEMORY_CGROUP_WARNING =
  'bench runs as root and no memory cgroup can be made here (/sys/fs/cgroup not writable): max_memory_bytes bounds the address space of each process (RLIMIT_AS), not the memory of a command\'s processes together';

const parents = new Map<Controller, string | null>();

/**
 * The cgroups of one command, for a root harness in a confining tier: a pids cgroup (RLIMIT_NPROC
 * binds every user but host root) and a memory cgroup (a bound across the command's processes).
 * A normal user's harness gets none: RLIMIT_NPROC in its namespace, RLIMIT_AS per process.
 */
function cgroupsFor(chosen: Chosen, limits: SandboxLimits, logger: Logger, root: boolean): CommandCgroups | null {
  if (!root || chosen.kind === 'none') return null;
  for (const c of ['pids', 'memory'] as const) if (!parents.has(c)) parents.set(c, cgroupParent(c));
  const cg = createCommandCgroups({ maxProcesses: limits.max_processes, maxMemoryBytes: limits.max_memory_bytes }, { pids: parents.get('pids')!, memory: parents.get('memory')! });
  if (!cg?.bounds.includes('pids')) warnOnce(logger, 'none', NO_PIDS_CGROUP_WARNING, 'auto', 'pids');
  if (!cg?.bounds.includes('memory')) warnOnce(logger, 'none', NO_MEMORY_CGROUP_WARNING, 'auto', 'memory');
  return cg;
}

/** The private /tmp's size when bounds are off (`unbounded`): larger than any machine's memory, as an unsized tmpfs was. */
const UNBOUNDED_TMP_BYTES = 2 ** 50;

/** Writes the shell's pid into each cgroup.procs file given before `--`, then execs the rest. */
const JOIN_CGROUPS_SCRIPT = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"';

let boundsOff = false;

/**
 * Turns every resource bound off (or back on) for this process's commands and staging copies,
 * as `unbounded` does for one command: only for measuring what the bounds cost a whole rep
 * (scripts/perf/sandbox-overhead.ts); the CLI never calls it.
 */
export function setResourceBoundsOffForMeasurement(off: boolean): void {
  boundsOff = off;
}

/** Whether setResourceBoundsOffForMeasurement turned the bounds off. */
export function resourceBoundsOff(): boolean {
  return boundsOff;
}

/** How long to wait for pipes to close after the shell exited, if an escaped child holds them open. */
const CLOSE_GRACE_MS = 2_000;

/**
 * The launcher: merges stderr into stdout (so their order is the order written) and runs the
 * command in a child shell rather than exec'ing it, so the command's direct parent is this
 * scrubbed-environment process and `/proc/$PPID/environ` shows nothing of the harness. The
 * command is passed as `$1`, never spliced into the script; `exit $?` keeps the shell from
 * replacing itself with its last command.
 */
const LAUNCH_SCRIPT = 'exec 2>&1; /bin/sh -c -- "$1"; exit $?';

/** A fresh empty HOME and TMPDIR for one command, and the unshare tier's staging mount point; removed when it ends. */
function createScratch(): { dir: string; home: string; tmp: string; stage: string } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'metis-sh-')));
  const home = join(dir, 'home');
  const tmp = join(dir, 'tmp');
  const stage = join(dir, 'stage');
  mkdirSync(home);
  mkdirSync(tmp);
  mkdirSync(stage);
  return { dir, home, tmp, stage };
}

type Chosen = { kind: 'bwrap'; bwrap: string; guard: DevGuardTools | null } | { kind: 'unshare'; tools: UnshareTools } | { kind: 'none' };

/**
 * The tier to run in: auto tries bwrap, then unshare, then none (never none for a root harness); a
 * demanded tier that is missing throws.
 */
async function chooseSandbox(opts: RunCommandOptions): Promise<Chosen> {
  const mode = opts.sandbox ?? 'auto';
  if (mode === 'auto' || mode === 'bwrap') {
    const bwrap = await (opts.findBwrap ?? (() => probeBwrap(opts.hostPath)))();
    if (bwrap) {
      // Only uid 0 owns the host's device nodes; a normal user's command cannot change them anyway.
      const guard = (opts.asRoot ?? isRoot()) ? findDevGuardTools(opts.hostPath) : null;
      if ((opts.asRoot ?? isRoot()) && !guard) warnOnce(opts.logger, 'bwrap', NO_DEV_GUARD_WARNING, mode, 'dev-guard');
      return { kind: 'bwrap', bwrap, guard };
    }
    if (mode === 'bwrap') throw new SandboxUnavailableError(opts.unavailableHint, 'bwrap');
  }
  if (mode === 'auto' || mode === 'unshare') {
    const tools = await (opts.findUnshare ?? (() => probeUnshare(opts.hostPath)))();
    if (tools) {
      warnOnce(opts.logger, 'unshare', unshareSandboxWarning(unshareReadableHere()), mode);
      return { kind: 'unshare', tools };
    }
    if (mode === 'unshare') throw new SandboxUnavailableError(opts.unavailableHint, 'unshare');
  }
  if (mode === 'auto' && (opts.asRoot ?? isRoot())) throw new RootUnconfinedError();
  warnOnce(opts.logger, 'none', NO_SANDBOX_WARNING, mode);
  return { kind: 'none' };
}

/** The program and arguments that run `shell` in the chosen tier. */
function commandLine(chosen: Chosen, shell: readonly string[], m: { workspace: string; writable: string[]; readable: string[]; hide: string[]; stage: string; home?: string; tmpMaxBytes: number }): [string, string[]] {
  if (chosen.kind === 'bwrap') {
    const args = bwrapArgs({ workspace: m.workspace, writable: m.writable, readable: m.readable, hide: m.hide, tmpMaxBytes: m.tmpMaxBytes }, shell);
    return chosen.guard ? guardedBwrapCommand(chosen.guard, chosen.bwrap, args) : [chosen.bwrap, args];
  }
  if (chosen.kind === 'unshare') return [chosen.tools.unshare, unshareArgs(m, chosen.tools, shell)];
  return [shell[0]!, shell.slice(1)];
}

/**
 * Runs `command` with `/bin/sh -c` in the workspace as a fresh process in its own session, with
 * an allow-listed environment and an empty HOME: under bwrap when available (system directories
 * read-only, workspace writable, nothing else of the host, no network), else under unshare (own
 * pid, mount and network namespaces; homes, temp dirs and `hide` covered), otherwise confined by
 * cwd and environment only. The process group is killed on timeout or abort, and after the shell
 * exits so no background child outlives the call.
 */
export async function runCommand(command: string, opts: RunCommandOptions): Promise<RunCommandResult> {
  if (!(opts.timeoutMs > 0)) throw new RangeError(`timeoutMs must be positive, got ${opts.timeoutMs}`);
  const workspace = realpathSync(opts.cwd);
  const chosen = await chooseSandbox(opts);
  if (opts.signal?.aborted) {
    return { exitCode: null, signal: null, output: '', truncated: false, timedOut: false, cancelled: true, sandbox: chosen.kind, limit: null, limitKey: null };
  }
  const limits = opts.limits ?? defaultResourceLimits().sandbox;
  const unbounded = opts.unbounded ?? boundsOff;
  const root = opts.asRoot ?? isRoot();
  const prlimit = unbounded ? null : findOnPath('prlimit', sandboxPath(opts.hostPath));
  if (!prlimit && !unbounded) warnOnce(opts.logger, chosen.kind, NO_PRLIMIT_WARNING, opts.sandbox ?? 'auto', 'prlimit');
  const cgroups = unbounded ? null : cgroupsFor(chosen, limits, opts.logger, root);
  const memoryAcross = cgroups?.bounds.includes('memory') ?? false;
  // RLIMIT_NPROC counts per user namespace: without one (none) it would count the user's host processes.
  const nprocInNamespace = prlimit !== null && chosen.kind !== 'none' && !root;
  // With a memory cgroup the bound is the command's total; RLIMIT_AS per process otherwise.
  const bounds = prlimit ? prlimitArgs(prlimit, limits, nprocInNamespace, !memoryAcross) : [];
  const shell = [...bounds, '/bin/sh', '-c', LAUNCH_SCRIPT, 'sh', command];
  const hide = (opts.hide ?? []).filter((p) => existsSync(p));
  const scratch = createScratch();
  const writable = [scratch.dir, ...(opts.writable ?? []).map((p) => realpathSync(p))];
  const readable = (opts.readable ?? []).map((p) => realpathSync(p));
  const [bin, binArgs] = commandLine(chosen, shell, { workspace, writable, readable, hide, stage: scratch.stage, tmpMaxBytes: unbounded ? UNBOUNDED_TMP_BYTES : limits.tmp_max_bytes, ...(opts.home !== undefined ? { home: opts.home } : {}) });
  // Joins the cgroups first, so every process the command starts is counted in them.
  const [file, args] = cgroups ? ['/bin/sh', ['-c', JOIN_CGROUPS_SCRIPT, 'sh', ...cgroups.procsFiles, '--', bin, ...binArgs]] : [bin, binArgs];
  const collector = createOutputCollector(opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES);
  const removeScratch = () => {
    try {
      removeTree(scratch.dir);
    } catch (e) {
      // Never fatal: what is left sits under the run's work dir, which the run (or the next one) removes again.
      opts.logger.log('warn', `could not remove a command's scratch dir ${scratch.dir}: ${(e as Error).message}`);
    }
    cgroups?.remove();
  };
  // The workspace and the command's own dirs: what it can fill on the host's disk.
  const measured = [workspace, ...writable];
  const overDisk = (): [keyof SandboxLimits, string] | null => {
    if (unbounded) return null;
    const u = diskUsage(measured, limits.workspace_max_bytes, treeBounds(limits));
    if (u.over) return [u.over, treeLimitMessage(u.over, limits[u.over])];
    return diskUse(u) > limits.workspace_max_bytes ? ['workspace_max_bytes', diskLimitMessage(u, limits.workspace_max_bytes)] : null;
  };

  return new Promise<RunCommandResult>((resolveRun, rejectRun) => {
    const child = spawn(file, args, {
      cwd: workspace,
      env: { ...opts.extraEnv, ...buildSandboxEnv(scratch, opts.hostPath) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // own process group, so one kill reaches every descendant
    });
    let timedOut = false;
    let cancelled = false;
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;
    let limit: string | null = null;
    let limitKey: keyof SandboxLimits | null = null;

    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // group already gone
      }
    };
    const onAbort = () => {
      cancelled = true;
      killGroup();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, opts.timeoutMs);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    // The counters of a root harness's cgroups: a refused fork, a process killed for memory.
    const overCgroups = (): [keyof SandboxLimits, string] | null => {
      if (cgroups?.pidsHit()) return ['max_processes', processLimitMessage(limits.max_processes, null)];
      const kills = cgroups?.oomKills() ?? 0;
      return kills > 0 ? ['max_memory_bytes', memoryLimitMessage(limits.max_memory_bytes, { kills })] : null;
    };
    const hit = (found: [keyof SandboxLimits, string] | null) => {
      if (limit || !found) return;
      [limitKey, limit] = found;
      killGroup();
    };
    // Bounds only the command sees (no counter records them): a fork RLIMIT_NPROC refused, confirmed
    // by the sandbox's task count (sampled with the disk polls and when output arrives: the sandbox
    // may be gone by the time its message is read), and an allocation RLIMIT_AS refused, as printed.
    let recent = '';
    let forkRefused = false;
    let peakTasks = 0;
    const sampleTasks = () => {
      if (limit || !nprocInNamespace || child.pid === undefined) return;
      peakTasks = Math.max(peakTasks, descendantTasks(child.pid));
      if (forkRefused && peakTasks >= limits.max_processes - PROCESS_COUNT_SLACK) hit(['max_processes', processLimitMessage(limits.max_processes, peakTasks)]);
    };
    const watchOutput = (c: Buffer) => {
      if (limit || unbounded || !prlimit) return;
      const text = recent + c.toString('utf8');
      recent = text.slice(-256);
      if (nprocInNamespace && FORK_REFUSED.test(text)) forkRefused = true;
      sampleTasks();
      const refusal = memoryAcross ? null : perProcessMemoryRefusal(text);
      if (refusal) hit(['max_memory_bytes', memoryLimitMessage(limits.max_memory_bytes, { evidence: refusal })]);
    };
    const diskTimer = setInterval(() => {
      hit(overDisk() ?? overCgroups());
      sampleTasks();
    }, DISK_POLL_MS);

    const finish = (code: number | null, sig: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      clearInterval(diskTimer);
      opts.signal?.removeEventListener('abort', onAbort);
      // Once more at the end: a command shorter than one poll (a single `truncate -s 4G`) is caught here.
      if (!limit) {
        const found = overDisk() ?? overCgroups();
        if (found) [limitKey, limit] = found;
      }
      removeScratch();
      const out = collector.finish();
      resolveRun({
        exitCode: timedOut || cancelled ? null : code,
        signal: sig,
        // The scratch dirs have random names: show them as ~ and $TMPDIR so output is the same run to run.
        output: out.text.replaceAll(scratch.home, '~').replaceAll(scratch.tmp, '$TMPDIR'),
        truncated: out.truncated,
        timedOut,
        cancelled,
        sandbox: chosen.kind,
        limit,
        limitKey,
      });
    };

    child.stdout.on('data', (c: Buffer) => {
      collector.push(c);
      watchOutput(c);
    });
    child.stderr.on('data', (c: Buffer) => collector.push(c)); // only bwrap's or unshare's own messages land here
    child.on('error', (err) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(diskTimer);
      opts.signal?.removeEventListener('abort', onAbort);
      removeScratch();
      rejectRun(err);
    });
    child.on('exit', (code, sig) => {
      killGroup();
      graceTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(code, sig);
      }, CLOSE_GRACE_MS);
    });
    child.on('close', (code, sig) => finish(code, sig));
  });
}
