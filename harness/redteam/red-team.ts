import { createMemoryLogger, type Logger } from '../../runtime/core/logger.ts';
import { runCheckDetailed } from '../../runtime/evaluator/check.ts';
import { loadSimScript } from '../../runtime/providers/sim/index.ts';
import type { SandboxMode } from '../../runtime/sandbox/index.ts';
import { withWorkspaceCopy } from '../workspace/hermetic-workspace.ts';
import { CHECK_MOUNT, type Workload } from '../workloads/workload.ts';
import { applyActions, type ActionEnv } from './apply-actions.ts';
import { loadWorkloadRedTeam, type Cheat } from './cheat-data.ts';
import { replayCompetentPlan } from './replay-plan.ts';

/** The two references every workload is held to, before the cheats. */
export const COMPETENT = 'competent';
export const DO_NOTHING = 'do-nothing';

/** One cell of the red-team table: a variant (competent plan, do-nothing, or a cheat) on one workload. */
export interface RedTeamCell {
  variant: string;
  /** What the hidden check must say. */
  expected: 'pass' | 'fail';
  /** What it said; null when the variant could not be applied or the check could not run (`reason` says why). */
  passed: boolean | null;
  /** True when the check said what it must. */
  ok: boolean;
  reason: string;
}

/** A workload's row; `cells` is empty when it has no hidden check (`note` says so). */
export interface RedTeamRow {
  workload: string;
  cells: RedTeamCell[];
  note: string | null;
}

export interface RedTeamOptions {
  workloads: readonly Workload[];
  generic: readonly Cheat[];
  sandbox: SandboxMode;
  hostPath?: string;
  /** Hidden from shell actions, as the workloads folder is in a run. */
  hide?: readonly string[];
  logger?: Logger;
  /** Called after each cell, for progress. */
  onCell?(workload: string, cell: RedTeamCell): void;
}

/**
 * The red-team QA of `bench validate --deep`: for each workload with a hidden check, on a fresh
 * copy of its fixture each time, the competent sim plan must pass the check (or fail it, for an
 * evaluator control), doing nothing must fail it, and so must every generic cheat and the
 * workload's own. Runs one variant at a time: each is a real check run in the sandbox.
 */
export async function runRedTeam(o: RedTeamOptions): Promise<RedTeamRow[]> {
  const logger = o.logger ?? createMemoryLogger();
  const env: ActionEnv = { sandbox: o.sandbox, logger, ...(o.hostPath !== undefined ? { hostPath: o.hostPath } : {}), ...(o.hide ? { hide: o.hide } : {}) };
  const rows: RedTeamRow[] = [];
  for (const w of o.workloads) {
    const check = w.spec.evaluate?.check;
    if (!check || !w.checkDir) {
      rows.push({ workload: w.spec.name, cells: [], note: 'no hidden check: nothing to red-team' });
      continue;
    }
    const own = loadWorkloadRedTeam(w.dir, o.generic);
    const variants: { name: string; expected: 'pass' | 'fail'; apply: (root: string) => Promise<void> }[] = [
      {
        name: COMPETENT,
        expected: own.competentPlan === 'passes' ? 'pass' : 'fail',
        apply: async (root) => {
          if (!w.simScriptPath) throw new Error('no sim.yaml: no competent plan to replay');
          await replayCompetentPlan(loadSimScript(w.simScriptPath), root, env);
        },
      },
      { name: DO_NOTHING, expected: 'fail', apply: async () => {} },
      ...[...o.generic, ...own.cheats].map((c) => ({ name: c.id, expected: 'fail' as const, apply: (root: string) => applyActions(c.actions, root, env) })),
    ];
    const cells: RedTeamCell[] = [];
    for (const v of variants) {
      const cell = await withWorkspaceCopy(w.workspaceDir, async (root): Promise<RedTeamCell> => {
        try {
          await v.apply(root);
        } catch (e) {
          return { variant: v.name, expected: v.expected, passed: null, ok: false, reason: `could not apply: ${(e as Error).message}` };
        }
        try {
          const run = await runCheckDetailed({
            command: check.command,
            timeoutSeconds: check.timeout_seconds ?? 60,
            workspaceRoot: root,
            checkFilesDir: w.checkDir,
            mount: CHECK_MOUNT,
            logger,
            sandbox: o.sandbox,
            ...(o.hostPath !== undefined ? { hostPath: o.hostPath } : {}),
            ...(o.hide ? { hide: o.hide } : {}),
          });
          const passed = run.result.passed;
          return { variant: v.name, expected: v.expected, passed, ok: passed === (v.expected === 'pass'), reason: run.reason };
        } catch (e) {
          return { variant: v.name, expected: v.expected, passed: null, ok: false, reason: `check could not run: ${(e as Error).message}` };
        }
      });
      cells.push(cell);
      o.onCell?.(w.spec.name, cell);
    }
    rows.push({ workload: w.spec.name, cells, note: null });
  }
  return rows;
}

/** The violations of a red-team run, one line each: workload, variant, expected, and why. */
export function redTeamViolations(rows: readonly RedTeamRow[]): string[] {
  return rows.flatMap((r) =>
    r.cells.filter((c) => !c.ok).map((c) => `${r.workload} × ${c.variant}: the check must ${c.expected} but ${c.passed === null ? 'did not run' : c.passed ? 'passed' : 'failed'} (${c.reason})`),
  );
}
