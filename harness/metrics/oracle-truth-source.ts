import { existsSync } from 'node:fs';
import { loadModelRegistry, type ModelRegistry } from '../../runtime/models/index.ts';
import { loadSimScript, type SimScript } from '../../runtime/providers/sim/sim-script.ts';
import type { Provenance } from '../../schemas/types/report.ts';
import { discoverWorkloads } from '../workloads/load-workload.ts';
import type { OracleMetricsOptions } from './oracle-block.ts';
import { scriptSolvedProbability } from './oracle-sim-truth.ts';

/**
 * The true oracle's source for a run: on the simulated provider, each workload's sim.yaml (from the
 * run's workloads dir) and each model's competence; otherwise the reason there is no truth to use.
 */
export function simTruthFor(provenance: Provenance, registry: ModelRegistry = loadModelRegistry()): OracleMetricsOptions['truth'] {
  if (provenance.actual_provider !== 'sim') return { unavailable: `provider ${provenance.actual_provider}: only the simulated provider knows P(competent)` };
  if (!existsSync(provenance.workloads_dir)) return { unavailable: `workloads dir ${provenance.workloads_dir} is gone; the sim scripts cannot be read` };
  const scripts = new Map<string, SimScript | null>();
  let loaded: Map<string, string | null> | null = null;
  const scriptOf = (workload: string): SimScript | null => {
    if (scripts.has(workload)) return scripts.get(workload)!;
    loaded ??= new Map(discoverWorkloads(provenance.workloads_dir).map((w) => [w.spec.name, w.simScriptPath]));
    const path = loaded.get(workload) ?? null;
    const script = path ? loadSimScript(path) : null;
    scripts.set(workload, script);
    return script;
  };
  return {
    pSolved(workload, model) {
      const script = scriptOf(workload);
      if (!script) return null;
      let competence: number;
      try {
        competence = registry.resolve(model).sim.competence;
      } catch {
        return null;
      }
      return scriptSolvedProbability(script, competence, provenance.temperature);
    },
  };
}
