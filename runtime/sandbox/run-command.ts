import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../core/logger.ts';
import { bwrapArgs, probeBwrap } from './bwrap.ts';
import { createOutputCollector, DEFAULT_MAX_OUTPUT_BYTES } from './output-cap.ts';
import { buildSandboxEnv } from './sandbox-env.ts';

/** Which confinement to use: `auto` picks bwrap when it works here, else none (with a warning). */
export type SandboxMode = 'auto' | 'bwrap' | 'none';

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
   * Absolute directories made invisible under bwrap (mounted as empty tmpfs), such as the workloads
   * folder whose check/ files the agent must not read. Without bwrap they cannot be hidden.
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
  /** Finds a working bwrap; default probeBwrap(hostPath). Tests pass one that finds none to take the no-bwrap path. */
  findBwrap?: () => Promise<string | null>;
  /** Appended to the message of the SandboxUnavailableError thrown when `sandbox: 'bwrap'` cannot be had. */
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
  sandbox: 'bwrap' | 'none';
}

/** Raised when `sandbox: 'bwrap'` is demanded but bwrap is missing or unusable. */
export class SandboxUnavailableError extends Error {
  constructor(hint = '') {
    super(`bubblewrap (bwrap) was required (sandbox: bwrap) but is not installed or cannot create namespaces${hint ? `; ${hint}` : ''}`);
    this.name = 'SandboxUnavailableError';
  }
}

/** The WARN text logged when commands run without bwrap. */
export const NO_SANDBOX_WARNING = 'running without bubblewrap (bwrap): run_shell and checks are confined by cwd, a scrubbed environment and an empty home only';

// Once per logger: a process has one logger in practice, and tests can still observe the warning.
const warned = new WeakSet<Logger>();

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

/** A fresh empty HOME and TMPDIR for one command, removed when it ends. */
function createScratch(): { dir: string; home: string; tmp: string } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'metis-sh-')));
  const home = join(dir, 'home');
  const tmp = join(dir, 'tmp');
  mkdirSync(home);
  mkdirSync(tmp);
  return { dir, home, tmp };
}

async function chooseSandbox(opts: RunCommandOptions): Promise<{ kind: 'bwrap'; bwrap: string } | { kind: 'none' }> {
  const mode = opts.sandbox ?? 'auto';
  if (mode !== 'none') {
    const bwrap = await (opts.findBwrap ?? (() => probeBwrap(opts.hostPath)))();
    if (bwrap) return { kind: 'bwrap', bwrap };
    if (mode === 'bwrap') throw new SandboxUnavailableError(opts.unavailableHint);
  }
  if (!warned.has(opts.logger)) {
    warned.add(opts.logger);
    opts.logger.log('warn', NO_SANDBOX_WARNING, { sandbox: 'none', requested: mode });
  }
  return { kind: 'none' };
}

/**
 * Runs `command` with `/bin/sh -c` in the workspace as a fresh process in its own session, with
 * an allow-listed environment and an empty HOME: under bwrap when available (system directories
 * read-only, workspace writable, nothing else of the host, no network), otherwise confined by cwd
 * and environment only. The process group is killed on timeout or abort, and after the shell
 * exits so no background child outlives the call.
 */
export async function runCommand(command: string, opts: RunCommandOptions): Promise<RunCommandResult> {
  if (!(opts.timeoutMs > 0)) throw new RangeError(`timeoutMs must be positive, got ${opts.timeoutMs}`);
  const workspace = realpathSync(opts.cwd);
  const chosen = await chooseSandbox(opts);
  if (opts.signal?.aborted) {
    return { exitCode: null, signal: null, output: '', truncated: false, timedOut: false, cancelled: true, sandbox: chosen.kind };
  }
  const shell = ['/bin/sh', '-c', LAUNCH_SCRIPT, 'sh', command];
  const hide = (opts.hide ?? []).filter((p) => existsSync(p));
  const scratch = createScratch();
  const writable = [scratch.dir, ...(opts.writable ?? []).map((p) => realpathSync(p))];
  const readable = (opts.readable ?? []).map((p) => realpathSync(p));
  const [file, args] = chosen.kind === 'bwrap' ? [chosen.bwrap, bwrapArgs({ workspace, writable, readable, hide }, shell)] : [shell[0]!, shell.slice(1)];
  const collector = createOutputCollector(opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES);
  const removeScratch = () => rmSync(scratch.dir, { recursive: true, force: true });

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

    const finish = (code: number | null, sig: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      opts.signal?.removeEventListener('abort', onAbort);
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
      });
    };

    child.stdout.on('data', (c: Buffer) => collector.push(c));
    child.stderr.on('data', (c: Buffer) => collector.push(c)); // only bwrap's own messages land here
    child.on('error', (err) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
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
