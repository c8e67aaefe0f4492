import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../../runtime/core/logger.ts';
import { resolveInWorkspace, runCommand, type SandboxMode } from '../../runtime/sandbox/index.ts';
import type { CheatAction } from './cheat-data.ts';

/** How a scripted agent's commands run: the same sandbox as a real agent's run_shell. */
export interface ActionEnv {
  sandbox: SandboxMode;
  hostPath?: string;
  logger: Logger;
  /** Directories hidden from shell actions (the workloads folder), as in a run. */
  hide?: readonly string[];
}

/**
 * Applies a cheat's actions to a workspace copy as an agent's tools would: paths resolve inside
 * the workspace only (a cheat cannot reach what an agent cannot), shell commands run in the
 * sandbox and their exit code is ignored, like an agent that carries on regardless.
 */
export async function applyActions(actions: readonly CheatAction[], root: string, env: ActionEnv): Promise<void> {
  for (const a of actions) {
    if ('write' in a) {
      const p = resolveInWorkspace(root, a.write.path);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, a.write.content);
    } else if ('delete' in a) {
      rmSync(resolveInWorkspace(root, a.delete), { recursive: true, force: true });
    } else {
      await runCommand(a.shell, { cwd: root, timeoutMs: 60_000, logger: env.logger, sandbox: env.sandbox, ...(env.hostPath !== undefined ? { hostPath: env.hostPath } : {}), ...(env.hide ? { hide: env.hide } : {}) });
    }
  }
}
