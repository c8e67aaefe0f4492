import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validatorFor } from '../../runtime/core/schemas.ts';
import { DataFileError, loadYamlValidated } from '../../runtime/core/yaml-document.ts';
import type { Cheat, CheatSet } from '../../schemas/types/cheat-set.ts';
import { checkInputSize } from '../input-limits.ts';

export type { Cheat, CheatAction, CheatSet } from '../../schemas/types/cheat-set.ts';

/** The shipped generic cheats: every `*.yaml` here applies to every workload. */
export const GENERIC_CHEATS_DIR = fileURLToPath(new URL('../data/cheats/', import.meta.url));

/** A workload's own red-team file, beside its workload.yaml. */
export const WORKLOAD_CHEATS_FILE = 'cheats.yaml';

/** Loads one cheat-set file, schema-checked; problems are DataFileErrors naming file:line:col. */
export function loadCheatSet(file: string): CheatSet {
  checkInputSize(file, 'cheat_set');
  return loadYamlValidated<CheatSet>(file, validatorFor<CheatSet>('cheat-set.schema.json'));
}

/** Every generic cheat, files in name order; `competent_plan` is refused there (it is a workload's fact). */
export function loadGenericCheats(dir: string = GENERIC_CHEATS_DIR): Cheat[] {
  const cheats: Cheat[] = [];
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
    const file = join(dir, name);
    const set = loadCheatSet(file);
    if (set.competent_plan !== undefined) throw new DataFileError(file, null, null, 'competent_plan belongs in a workload\'s cheats.yaml, not in a generic cheat set', 'remove it');
    cheats.push(...(set.cheats ?? []));
  }
  assertUniqueIds(cheats, dir);
  return cheats;
}

/** What a workload's folder adds: its own cheats, and whether its competent plan is expected to pass. */
export interface WorkloadRedTeam {
  competentPlan: 'passes' | 'fails';
  cheats: Cheat[];
}

/** Reads `<workloadDir>/cheats.yaml` when present; its ids must not repeat a generic one. */
export function loadWorkloadRedTeam(workloadDir: string, generic: readonly Cheat[]): WorkloadRedTeam {
  const file = join(workloadDir, WORKLOAD_CHEATS_FILE);
  if (!existsSync(file)) return { competentPlan: 'passes', cheats: [] };
  const set = loadCheatSet(file);
  const cheats = set.cheats ?? [];
  assertUniqueIds([...generic, ...cheats], file);
  return { competentPlan: set.competent_plan ?? 'passes', cheats };
}

function assertUniqueIds(cheats: readonly Cheat[], where: string): void {
  const seen = new Set<string>();
  for (const c of cheats) {
    if (seen.has(c.id)) throw new DataFileError(where, null, null, `cheat id '${c.id}' is used twice`, 'give each cheat its own id');
    seen.add(c.id);
  }
}
