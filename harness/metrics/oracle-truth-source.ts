import { existsSync } from 'node:fs';
import { cachedParse } from '../../runtime/core/parsed-file-cache.ts';
import { loadModelRegistry, type ModelRegistry } from '../../runtime/models/index.ts';
import { loadSimScript } from '../../runtime/providers/sim/sim-script.ts';
import type { Provenance } from '../../schemas/types/report.ts';
import { workloadFinder } from '../workloads/load-workload.ts';
import type { Workload } from '../workloads/workload.ts';
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
  let find: ((name: string) => Workload | null) | null = null;
  const difficultiesOf = (workload: string): number[] | null => {
    if (scripts.has(workload)) return scripts.get(workload)!;
    find ??= workloadFinder(provenance.workloads_dir);
    const path = find(workload)?.simScriptPath ?? null;
    // Kept as the turns' difficulties alone, all the truth reads: a cold analyze parsed some 120 KB of kept
    // scripts for them. A script that does not load keeps nothing, so it is refused as it always was.
    const difficulties = path ? cachedParse('sim-difficulties', path, () => scriptDifficulties(loadSimScript(path))) : null;
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
