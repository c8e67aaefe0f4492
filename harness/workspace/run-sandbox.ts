import { readdirSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { isRoot, parseSandboxMode, probeBwrap, probeUnshare, ROOT_UNCONFINED_REFUSAL, SANDBOX_ENV_VAR, unshareReadable, type SandboxMode } from '../../runtime/sandbox/index.ts';
import { SetupError } from '../errors.ts';

/** The sandbox a run uses for `run_shell` and hidden checks, and the warning to show about it. */
export interface RunSandbox {
  mode: SandboxMode;
  /** Set when commands will run without bubblewrap, or will be refused for want of a sandbox. */
  warning: string | null;
}

/** The warning of a real-provider run refused a sandbox. */
export const REFUSED_UNSANDBOXED =
  'no sandbox: neither bubblewrap (bwrap) nor util-linux unshare can create namespaces here, so run_shell and hidden checks are refused on a real provider ' +
  '(install bubblewrap, or pass --unsandboxed to run them confined by cwd, a scrubbed environment and an empty home only)';

/** The warning of a run whose commands fall back to the unshare tier: one line naming what stays readable. */
export function unshareRunWarning(readable: readonly string[]): string {
  return (
    'sandboxed with unshare (no bubblewrap): run_shell and hidden checks run in their own pid, mount and network namespaces with the homes, temp dirs, /run, most of /etc and the workloads covered; ' +
    `still readable, read-only: ${readable.length ? readable.join(', ') : 'nothing beyond the system directories'} (install bubblewrap for the full sandbox, docs/threat-model.md)`
  );
}

/** Probes for the two sandbox tiers; tests pass ones that find nothing. */
export interface SandboxProbes {
  /** Finds a working bwrap; default probeBwrap on the env's PATH. */
  probe?: () => Promise<string | null>;
  /** Finds a working unshare tier; default probeUnshare on the env's PATH. */
  probeUnshare?: () => Promise<unknown>;
  /** Whether bench runs as root; default isRoot(). */
  asRoot?: boolean;
  /** The top-level entries of / as absolute paths, for the unshare warning; default read from the root. */
  rootEntries?: () => string[];
}

/** The root's top-level entries as absolute paths ([] when / cannot be listed). */
function listRoot(): string[] {
  try {
    return readdirSync('/').map((e) => `/${e}`);
  } catch {
    return [];
  }
}

/**
 * Decides the run's sandbox at the CLI edge. `METIS_SANDBOX` (auto, bwrap, unshare, none) forces a
 * mode; by default bubblewrap is used, else the unshare tier (with a warning), else a real
 * provider's commands are refused (the run goes on) unless the user opts in with `--unsandboxed`,
 * while simulated runs go on unconfined with a warning, since their commands are the workload
 * author's own scripts, except as root: then unconfined commands could write the host's kernel
 * settings, and they are refused unless the user opts in.
 */
export async function decideRunSandbox(o: SandboxProbes & {
  env: Readonly<Record<string, string | undefined>>;
  realProvider: boolean;
  unsandboxed: boolean;
}): Promise<RunSandbox> {
  let requested: SandboxMode;
  try {
    requested = parseSandboxMode(o.env[SANDBOX_ENV_VAR]);
  } catch (e) {
    throw new SetupError((e as Error).message);
  }
  if (requested === 'none') return { mode: 'none', warning: `${SANDBOX_ENV_VAR}=none: run_shell and hidden checks run without bubblewrap, confined by cwd, a scrubbed environment and an empty home only` };
  if (requested === 'auto' || requested === 'bwrap') {
    const bwrap = await (o.probe ?? (() => probeBwrap(o.env.PATH)))();
    if (bwrap) return { mode: requested, warning: null };
    if (requested === 'bwrap') return { mode: 'bwrap', warning: REFUSED_UNSANDBOXED };
  }
  const unshare = await (o.probeUnshare ?? (() => probeUnshare(o.env.PATH)))();
  if (unshare) return { mode: 'unshare', warning: unshareRunWarning(unshareReadable((o.rootEntries ?? listRoot)(), homedir(), tmpdir())) };
  if (requested === 'unshare') {
    return { mode: 'unshare', warning: `${SANDBOX_ENV_VAR}=unshare: util-linux unshare cannot create namespaces here, so run_shell and hidden checks are refused` };
  }
  if (o.realProvider && !o.unsandboxed) return { mode: 'bwrap', warning: REFUSED_UNSANDBOXED };
  // `auto` kept: runCommand refuses it for root with the same message (RootUnconfinedError).
  if (!o.unsandboxed && (o.asRoot ?? isRoot())) return { mode: 'auto', warning: ROOT_UNCONFINED_REFUSAL };
  return {
    mode: 'none',
    warning: o.unsandboxed
      ? 'no sandbox (neither bubblewrap nor unshare works here) and --unsandboxed given: run_shell and hidden checks are confined by cwd, a scrubbed environment and an empty home only'
      : 'no sandbox (neither bubblewrap nor unshare works here): run_shell and hidden checks of this simulated run are confined by cwd, a scrubbed environment and an empty home only',
  };
}
