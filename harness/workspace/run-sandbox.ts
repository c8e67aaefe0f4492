import { parseSandboxMode, probeBwrap, SANDBOX_ENV_VAR, type SandboxMode } from '../../runtime/sandbox/index.ts';
import { SetupError } from '../errors.ts';

/** The sandbox a run uses for `run_shell` and hidden checks, and the warning to show about it. */
export interface RunSandbox {
  mode: SandboxMode;
  /** Set when commands will run without bubblewrap, or will be refused for want of it. */
  warning: string | null;
}

/** The warning of a real-provider run refused a sandbox. */
export const REFUSED_UNSANDBOXED =
  'no sandbox: bubblewrap (bwrap) is not installed or cannot create namespaces, so run_shell and hidden checks are refused on a real provider ' +
  '(install bubblewrap, or pass --unsandboxed to run them confined by cwd, a scrubbed environment and an empty home only)';

/**
 * Decides the run's sandbox at the CLI edge. `METIS_SANDBOX` (auto, bwrap, none) forces a mode;
 * by default a real provider's model gets bubblewrap or nothing (its commands are refused, the
 * run goes on) unless the user opts in with `--unsandboxed`, while simulated runs go on unconfined
 * with a warning, since their commands are the workload author's own scripts.
 */
export async function decideRunSandbox(o: {
  env: Readonly<Record<string, string | undefined>>;
  realProvider: boolean;
  unsandboxed: boolean;
  /** Finds a working bwrap; default probeBwrap on the env's PATH (tests pass one that finds none). */
  probe?: () => Promise<string | null>;
}): Promise<RunSandbox> {
  let requested: SandboxMode;
  try {
    requested = parseSandboxMode(o.env[SANDBOX_ENV_VAR]);
  } catch (e) {
    throw new SetupError((e as Error).message);
  }
  const bwrap = await (o.probe ?? (() => probeBwrap(o.env.PATH)))();
  if (requested === 'none') return { mode: 'none', warning: `${SANDBOX_ENV_VAR}=none: run_shell and hidden checks run without bubblewrap, confined by cwd, a scrubbed environment and an empty home only` };
  if (bwrap) return { mode: requested, warning: null };
  if (requested === 'bwrap' || (o.realProvider && !o.unsandboxed)) return { mode: 'bwrap', warning: REFUSED_UNSANDBOXED };
  return {
    mode: 'none',
    warning: o.unsandboxed
      ? 'bubblewrap (bwrap) not found and --unsandboxed given: run_shell and hidden checks are confined by cwd, a scrubbed environment and an empty home only'
      : 'bubblewrap (bwrap) not found: run_shell and hidden checks of this simulated run are confined by cwd, a scrubbed environment and an empty home only',
  };
}
