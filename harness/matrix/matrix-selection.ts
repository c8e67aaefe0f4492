// Which workloads `bench run` and `bench compare` read as one matrix, and the settings asked of it.
import { join } from 'node:path';
import { SetupError } from '../errors.ts';
import { workloadKind } from '../workloads/workload-kind.ts';
import type { SettingName } from './matrix-report.ts';
import { ALL_SETTINGS } from './run-matrix.ts';

/** True when every selected name is a matrix workload (and there is at least one); mixing kinds is a setup error. */
export function selectsMatrix(workloadsDir: string, names: readonly string[]): boolean {
  const matrices = names.filter((n) => workloadKind(join(workloadsDir, n)) === 'matrix');
  if (matrices.length && matrices.length !== names.length) throw new SetupError(`--workload mixes matrix workloads (${matrices.join(', ')}) with others: run them in separate invocations`);
  if (matrices.length > 1) throw new SetupError(`--workload: one matrix per run (got ${matrices.join(', ')}); run each in its own invocation`);
  return matrices.length === 1;
}

/** Parses --matrix-settings: a comma list of in_sample, unseen_tasks, new_workspace, online. */
export function parseSettings(text: string | undefined): SettingName[] {
  if (!text) return [...ALL_SETTINGS];
  const out = text.split(',').map((s) => s.trim());
  for (const s of out) if (!(ALL_SETTINGS as readonly string[]).includes(s)) throw new SetupError(`--matrix-settings: unknown setting '${s}'; choose from ${ALL_SETTINGS.join(', ')}`);
  return out as SettingName[];
}
