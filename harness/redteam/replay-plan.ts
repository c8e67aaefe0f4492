import { createEditFileTool, createRunShellTool, createWriteFileTool, type Tool } from '../../runtime/tools/index.ts';
import type { SimScript, SimTurn } from '../../runtime/providers/sim/index.ts';
import type { ActionEnv } from './apply-actions.ts';

/** Tools whose effects a replay reproduces; reads, listings and skill look-ups change nothing. */
function effectTools(env: ActionEnv): Map<string, Tool> {
  const shell = createRunShellTool({ sandbox: env.sandbox, ...(env.hostPath !== undefined ? { hostPath: env.hostPath } : {}), ...(env.hide ? { hide: env.hide } : {}) });
  return new Map([createWriteFileTool(), createEditFileTool(), shell].map((t) => [t.name, t]));
}

/**
 * Plays the competent plan of every turn (and, for `delegate`, the competent turns of the worker
 * whose `match` is in the task) on a workspace copy with the real file and shell tools, outside
 * the runtime: the README's "replay the plans" recipe. A failing write or edit throws, since a
 * competent plan that cannot apply is itself a workload bug.
 */
export async function replayCompetentPlan(script: SimScript, root: string, env: ActionEnv): Promise<void> {
  const tools = effectTools(env);
  const playTurns = async (turns: readonly SimTurn[], inWorker: boolean): Promise<void> => {
    for (const [t, turn] of turns.entries()) {
      const plan = turn.plans.find((p) => p.competent);
      if (!plan) throw new Error(`turn ${t + 1} has no competent plan`);
      for (const step of plan.steps) {
        for (const call of step.tool_calls) {
          if (call.tool === 'delegate' && !inWorker) {
            const task = String(call.input.task ?? '');
            const worker = script.workers?.find((w) => task.includes(w.match));
            if (!worker) throw new Error(`turn ${t + 1}: no worker script matches the delegated task '${task.slice(0, 60)}…'`);
            await playTurns(worker.turns, true);
            continue;
          }
          const tool = tools.get(call.tool);
          if (!tool) continue;
          try {
            await tool.run(call.input, { workspaceRoot: root, logger: env.logger });
          } catch (e) {
            throw new Error(`turn ${t + 1}, plan '${plan.id}': ${call.tool} failed: ${(e as Error).message}`, { cause: e });
          }
        }
      }
    }
  };
  await playTurns(script.turns, false);
}
