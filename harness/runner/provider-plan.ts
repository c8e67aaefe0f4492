import { createVirtualClock } from '../../runtime/core/clock.ts';
import type { ModelRegistry } from '../../runtime/models/index.ts';
import { createRecordingProvider, createReplayProvider, CassetteMissError } from '../../runtime/providers/cassette/index.ts';
import type { Provider } from '../../runtime/providers/provider.ts';
import { createSimProvider, loadSimScript, type SimScript } from '../../runtime/providers/sim/index.ts';
import { SetupError } from '../errors.ts';
import type { Workload } from '../workloads/workload.ts';
import { KEY_VARIABLES, resolveBackend, type RequestedProvider, type ResolvedBackend } from './resolve-provider.ts';
import { createAnthropicProvider, createOpenAIProvider } from '../../runtime/providers/index.ts';

/** How the run gets its model answers: which backend, and a provider per workload rep. */
export interface ProviderPlan {
  /** For provenance: `sim`, or `replay:<recorded providers>`. */
  actual: string;
  /** True when the numbers come from the emulator, directly or through a cassette: every rendering says so. */
  simulated: boolean;
  warnings: string[];
  forRep(workload: Workload, pass: string, rep: number): Provider;
}

/** Options that choose the backend. */
export interface ProviderPlanOptions {
  requested: RequestedProvider;
  modelProvider: string;
  env: Readonly<Record<string, string | undefined>>;
  workloads: readonly Workload[];
  registry: ModelRegistry;
  seed: number;
  record: string | null;
  replay: string | null;
  /** `--base-url`: required for openai-compatible, optional for the others (proxies, tests). */
  baseURL: string | null;
}

/** Resolves `--provider`, `--record` and `--replay` into a plan; every problem is a SetupError. */
export function planProvider(o: ProviderPlanOptions): ProviderPlan {
  if (o.replay || o.requested === 'replay') {
    if (!o.replay) throw new SetupError('--provider replay needs --replay FILE (a cassette written by --record)');
    if (o.record) throw new SetupError('--record and --replay cannot be used together');
    // A replayed run asks no provider, so no key is needed.
    let replay: ReturnType<typeof createReplayProvider>;
    try {
      replay = createReplayProvider(o.replay);
    } catch (e) {
      if (e instanceof CassetteMissError || e instanceof Error) throw new SetupError(e.message);
      throw e;
    }
    const sources = replay.sourceProviders();
    return { actual: `replay:${sources.join('+') || 'empty'}`, simulated: sources.includes('sim'), warnings: [], forRep: () => replay };
  }
  const backend = resolveBackend(o.requested, o.modelProvider, o.env, o.baseURL);
  const record = (p: Provider) => (o.record ? createRecordingProvider(p, o.record) : p);
  if (backend !== 'sim') {
    const real = createRealProvider(backend, o);
    const shared = record(real);
    return { actual: backend, simulated: false, warnings: [], forRep: () => shared };
  }
  const scripts = new Map<string, SimScript>();
  for (const w of o.workloads) {
    if (!w.simScriptPath) throw new SetupError(`${w.dir}: no sim.yaml, so the simulated provider cannot play this workload`);
    scripts.set(w.spec.name, loadSimScript(w.simScriptPath));
  }
  return {
    actual: 'sim',
    simulated: true,
    warnings: [],
    forRep(w, pass, rep) {
      // A fresh emulator per rep: its prompt cache and virtual clock belong to that rep alone.
      const sim = createSimProvider({ script: scripts.get(w.spec.name)!, registry: o.registry, context: { seed: o.seed, workload: w.spec.name, pass, rep }, clock: createVirtualClock() });
      return record(sim);
    },
  };
}

/** One adapter for the whole run; keys are read here, at the edge, and go nowhere else. */
function createRealProvider(backend: Exclude<ResolvedBackend, 'sim'>, o: ProviderPlanOptions): Provider {
  const keyVariable = KEY_VARIABLES[backend]!;
  const apiKey = o.env[keyVariable] ?? '';
  const baseURL = o.baseURL ?? undefined;
  if (backend === 'anthropic') return createAnthropicProvider({ apiKey, registry: o.registry, keyVariable, ...(baseURL ? { baseURL } : {}) });
  return createOpenAIProvider({ apiKey, registry: o.registry, providerName: backend, keyVariable, ...(baseURL ? { baseURL } : {}) });
}
