import { existsSync } from 'node:fs';
import { cachedResult } from '../../runtime/core/parsed-file-cache.ts';
import { loadModelRegistry, type ModelRegistry } from '../../runtime/models/index.ts';
import { loadSimScript } from '../../runtime/providers/sim/sim-script.ts';
import type { Provenance } from '../../schemas/types/report.ts';
import { workloadFinder, workloadInputs, type WorkloadFinder } from '../workloads/load-workload.ts';
import type { OracleMetricsOptions } from './oracle-block.ts';
import { scriptDifficulties, solvedProbability } from './oracle-sim-truth.ts';

/**
 * The true oracle's source for a run: on the simulated provider, each workload's sim.yaml (from the
 * run's workloads dir) and each model's competence; otherwise the reason there is no truth to use.
 */
export function simTruthFor(provenance: Provenance, registry: ModelRegistry = loadModelRegistry()): OracleMetricsOptions['truth'] {
  if (provenance.actual_provider !== 'sim') return { unavailable: `provider ${provenance.actual_provider}: only the simulated provider knows P(competent)` };
  if (!existsSync(provenance.workloads_dir)) return { unavailable: `workloads dir ${provenance.workloads_dir} is gone; the sim scripts cannot be read` };
  const scripts = new Map<string, number[] | null>();
  // Only the run's workloads are read (a report asks for each of them), not every one in the directory.
  let finder: WorkloadFinder | null = null;
  const difficultiesOf = (workload: string): number[] | null => {
    if (scripts.has(workload)) return scripts.get(workload)!;
    finder ??= workloadFinder(provenance.workloads_dir);
    const dir = finder.dirOf(workload);
    // Kept as the turns' difficulties alone, all the truth reads, against the files the workload's load and its
    // script depend on: an unchanged workload is neither read nor parsed (a cold analyze loaded 15 workloads and
    // their kept scripts for these). A workload or script that does not load keeps nothing, so it is refused as it always was.
    const difficulties =
      dir === null
        ? null
        : cachedResult('sim-truth', workloadInputs(dir), () => {
            const path = finder!.find(workload)?.simScriptPath ?? null;
            return path ? scriptDifficulties(loadSimScript(path)) : null;
          });
    scripts.set(workload, difficulties);
    return difficulties;
  };
  return {
    pSolved(workload, model) {
      const difficulties = difficultiesOf(workload);
      if (!difficulties) return null;
      let competence: number;
      try {
        competence = registry.resolve(model).sim.competence;
      } catch {
        return null;
      }
      return solvedProbability(difficulties, competence, provenance.temperature);
    },
  };
}
