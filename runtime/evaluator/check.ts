import { runCommand, scrubWorkspacePaths } from '../sandbox/index.ts';
import type { Logger } from '../core/logger.ts';

/** Outcome of a workload's `evaluate.check` command. */
export interface CheckResult {
  passed: boolean;
  exit_code: number | null;
  timed_out: boolean;
  sandbox: string;
  /** Tail of the command's output, for the report. */
  output_tail: string;
}

/** Runs `evaluate.check` in the sandbox, in the finished workspace; exit 0 means the task was solved. */
export async function runCheck(options: {
  command: string;
  timeoutSeconds: number;
  workspaceRoot: string;
  logger: Logger;
  /** The caller's PATH, so the check finds the same interpreters the user has. */
  hostPath?: string;
}): Promise<CheckResult> {
  const r = await runCommand(options.command, {
    cwd: options.workspaceRoot,
    timeoutMs: Math.round(options.timeoutSeconds * 1000),
    maxOutputBytes: 64 * 1024,
    logger: options.logger,
    ...(options.hostPath !== undefined ? { hostPath: options.hostPath } : {}),
  });
  return {
    passed: r.exitCode === 0 && !r.timedOut,
    exit_code: r.exitCode,
    timed_out: r.timedOut,
    sandbox: r.sandbox,
    output_tail: scrubWorkspacePaths(r.output, options.workspaceRoot).slice(-2000),
  };
}
