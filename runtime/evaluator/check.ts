import { resourceBoundsOff, runCommand, scrubWorkspacePaths, type SandboxMode } from '../sandbox/index.ts';
import { defaultResourceLimits, ResourceLimitError, type SandboxLimits } from '../sandbox/resource-limits.ts';
import type { Logger } from '../core/logger.ts';
import { CHECK_MAIN_ENV, CHECK_REPORT_ENV, judgeCheck, readCheckReports, type CheckReport } from './check-report.ts';
import { stageCheck } from './check-stage.ts';

/** Outcome of a workload's `evaluate.check` command (the report's `check` object). */
export interface CheckResult {
  passed: boolean;
  exit_code: number | null;
  timed_out: boolean;
  sandbox: string;
  /** Tail of the command's output, for the report; its last line says why the check passed or failed. */
  output_tail: string;
}

/** How to run a check. */
export interface RunCheckOptions {
  command: string;
  timeoutSeconds: number;
  /** The agent's finished workspace: read, never written (the check runs on a copy). */
  workspaceRoot: string;
  /**
   * The hidden check files, copied to `<copy>/<mount>` only now. When given, whatever the agent
   * left at `<mount>` is ignored; when absent, the workspace is taken as it is (mount included).
   */
  checkFilesDir?: string | null;
  /** Default `.bench-check`. */
  mount?: string;
  logger: Logger;
  /** The caller's PATH, so the check finds the same interpreters the user has. */
  hostPath?: string;
  /** Default `auto`; `bwrap` throws SandboxUnavailableError when bwrap cannot run. */
  sandbox?: SandboxMode;
  /** Directories the check must not see under bwrap (see RunCommandOptions.hide). */
  hide?: readonly string[];
  /** Disk, process and memory bounds of the staging copy and the check; default the shipped ones. */
  limits?: SandboxLimits;
}

/** A check run with the check's own report beside the result the report stores. */
export interface CheckRun {
  result: CheckResult;
  report: CheckReport | null;
  reason: string;
}

/**
 * Runs `evaluate.check` in a fresh copy of the finished workspace, in the sandbox, with Python
 * kept from importing workspace files in place of its standard library, and judges it by its exit
 * code AND its own report (see judgeCheck). Throws when the check cannot be run at all (the
 * caller records that as a check error, not as the agent's failure).
 */
export async function runCheckDetailed(options: RunCheckOptions): Promise<CheckRun> {
  const limits = options.limits ?? defaultResourceLimits().sandbox;
  const stage = stageCheck({ ...options, ...(resourceBoundsOff() ? {} : { maxBytes: limits.workspace_max_bytes, maxFiles: limits.workspace_max_files, maxDepth: limits.workspace_max_depth }) });
  try {
    const r = await runCommand(options.command, {
      cwd: stage.work,
      timeoutMs: Math.round(options.timeoutSeconds * 1000),
      maxOutputBytes: 64 * 1024,
      logger: options.logger,
      writable: [stage.reportDir],
      readable: [stage.hookDir],
      extraEnv: { PYTHONPATH: stage.hookDir, PYTHONSAFEPATH: '1', [CHECK_REPORT_ENV]: stage.reportDir, [CHECK_MAIN_ENV]: '1' },
      ...(options.hostPath !== undefined ? { hostPath: options.hostPath } : {}),
      ...(options.sandbox ? { sandbox: options.sandbox } : {}),
      ...(options.hide ? { hide: options.hide } : {}),
      limits,
    });
    if (r.limit) throw new ResourceLimitError(r.limitKey ?? 'workspace_max_bytes', `the check ran into a resource bound: ${r.limit}`);
    const report = readCheckReports(stage.reportDir);
    const { passed, reason } = judgeCheck(r, report);
    const output = scrubWorkspacePaths(r.output, stage.work);
    const tail = `${output}${output === '' || output.endsWith('\n') ? '' : '\n'}[check] ${passed ? 'passed' : 'failed'}: ${reason}\n`;
    return {
      result: { passed, exit_code: r.exitCode, timed_out: r.timedOut, sandbox: r.sandbox, output_tail: tail.slice(-2000) },
      report,
      reason,
    };
  } finally {
    try {
      stage.cleanup();
    } catch (e) {
      // The check ran; what is left of its copy sits under the run's work dir, removed with it.
      options.logger.log('warn', `could not remove the hidden check's staging copy: ${(e as Error).message}`);
    }
  }
}

/** Runs `evaluate.check` (see runCheckDetailed); exit 0 and a clean report mean the task was solved. */
export async function runCheck(options: RunCheckOptions): Promise<CheckResult> {
  return (await runCheckDetailed(options)).result;
}

export { judgeCheck, readCheckReports, type CheckReport, type CheckJudgement } from './check-report.ts';
