import { runCommand, scrubWorkspacePaths, type SandboxMode } from '../../sandbox/index.ts';
import type { SandboxLimits } from '../../sandbox/resource-limits.ts';
import { ToolError, type Tool } from '../tool.ts';

/** Default and maximum `timeout_seconds` of `run_shell`. */
export const RUN_SHELL_DEFAULT_TIMEOUT_S = 60;
export const RUN_SHELL_MAX_TIMEOUT_S = 600;

/** Options for `run_shell`; read the parent PATH at the edge and pass it here. */
export interface RunShellOptions {
  sandbox?: SandboxMode;
  hostPath?: string;
  maxOutputBytes?: number;
  /** Directories the command must not see (see RunCommandOptions.hide). */
  hide?: readonly string[];
  /** Disk, process and memory bounds of each command; default the shipped ones. */
  limits?: SandboxLimits;
}

/**
 * `run_shell {command, timeout_seconds = 60}`: runs a shell command in the sandboxed workspace.
 * A non-zero exit is a completed call whose content ends with the exit code; a timeout fails; a
 * command that runs into a resource bound fails with `resource_limit`, which ends the rep.
 */
export function createRunShellTool(opts: RunShellOptions = {}): Tool {
  return {
    name: 'run_shell',
    description:
      'Run a shell command (/bin/sh) with the workspace as the working directory. Output (stdout and stderr) ' +
      'is capped; the exit code is reported. No network access; only the workspace is writable.',
    side_effects: 'execute',
    input_schema: {
      type: 'object',
      additionalProperties: false,
      required: ['command'],
      properties: {
        command: { type: 'string', minLength: 1, description: 'The shell command line.' },
        timeout_seconds: {
          type: 'number',
          exclusiveMinimum: 0,
          maximum: RUN_SHELL_MAX_TIMEOUT_S,
          default: RUN_SHELL_DEFAULT_TIMEOUT_S,
          description: `Seconds before the command is killed (default ${RUN_SHELL_DEFAULT_TIMEOUT_S}, max ${RUN_SHELL_MAX_TIMEOUT_S}).`,
        },
      },
    },
    async run(input, ctx) {
      const command = input.command as string;
      const timeoutS = typeof input.timeout_seconds === 'number' ? input.timeout_seconds : RUN_SHELL_DEFAULT_TIMEOUT_S;
      const r = await runCommand(command, {
        cwd: ctx.workspaceRoot,
        timeoutMs: timeoutS * 1000,
        logger: ctx.logger,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        ...(opts.sandbox ? { sandbox: opts.sandbox } : {}),
        ...(opts.hostPath !== undefined ? { hostPath: opts.hostPath } : {}),
        ...(opts.maxOutputBytes !== undefined ? { maxOutputBytes: opts.maxOutputBytes } : {}),
        ...(opts.hide ? { hide: opts.hide } : {}),
        ...(opts.limits ? { limits: opts.limits } : {}),
      });
      if (r.limit) throw new ToolError('resource_limit', r.limit);
      if (r.timedOut) throw new ToolError('timeout', `command timed out after ${timeoutS}s and was killed`);
      if (r.cancelled) throw new ToolError('cancelled', 'command cancelled');
      const status = r.exitCode !== null ? `[exit code: ${r.exitCode}]` : `[killed by signal ${r.signal ?? 'unknown'}]`;
      const output = scrubWorkspacePaths(r.output, ctx.workspaceRoot);
      const content = output === '' ? status : `${output}${output.endsWith('\n') ? '' : '\n'}${status}`;
      return { content, command_executed: command, success: r.exitCode === 0 };
    },
  };
}
