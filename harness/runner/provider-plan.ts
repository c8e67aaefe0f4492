import { createVirtualClock } from '../../runtime/core/clock.ts';
import type { ModelRegistry } from '../../runtime/models/index.ts';
import { createRecordingProvider, createReplayProvider, CassetteMissError } from '../../runtime/providers/cassette/index.ts';
import type { Provider } from '../../runtime/providers/provider.ts';
import { createSimProvider, loadSimScript, type SimScript } from '../../runtime/providers/sim/index.ts';
import { SetupError } from '../errors.ts';
import type { Workload } from '../workloads/workload.ts';
import { KEY_VARIABLES, resolveBackend, type RequestedProvider, type ResolvedBackend } from '../jobs/resolve-provider.ts';
import { createAnthropicProvider, createOpenAIProvider } from '../../runtime/providers/index.ts';
import type { RetryNotice } from '../../runtime/providers/retry.ts';

/** How the run gets its model answers: which backend, and a provider per workload rep. */
export interface ProviderPlan {
  /** For provenance: `sim`, or `replay:<recorded providers>`. */
  actual: string;
  /** True when the numbers come from the emulator, directly or through a cassette: every rendering says so. */
  simulated: boolean;
  warnings: string[];
  forRep(workload: Workload, pass: string, rep: number): Provider;
  /**
   * A provider for a workload's `evaluate.llm_judge_model` (spec §5); throws when the run cannot
   * reach one (the emulator does not play a judge, or the judge model's key is not set).
   */
  forJudge(model: string): Provider;
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
  /** `--request-timeout` in ms: how long one HTTP attempt of a real provider may take; null keeps the adapters' default. */
  requestTimeoutMs?: number | null;
  /** `--max-retries`: retries after a failed attempt of a real provider; null keeps the adapters' default. */
  maxRetries?: number | null;
  /** Told of each retry a real provider makes (the run shows it on stderr). */
  onRetry?: (notice: RetryNotice) => void;
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
    // Recorded judge calls replay like any other; a judge call missing from the cassette fails that verdict only.
    return { actual: `replay:${sources.join('+') || 'empty'}`, simulated: sources.includes('sim'), warnings: [], forRep: () => replay, forJudge: () => replay };
  }
  const backend = resolveBackend(o.requested, o.modelProvider, o.env, o.baseURL);
  const record = (p: Provider) => (o.record ? createRecordingProvider(p, o.record) : p);
  if (backend !== 'sim') {
    const real = createRealProvider(backend, o);
    const shared = record(real);
    return { actual: backend, simulated: false, warnings: [], forRep: () => shared, forJudge: (model) => judgeProvider(model, backend, shared, o, record) };
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
    forJudge() {
      // A scripted emulator grading its own scripted answers would be a verdict about the script, not the work.
      throw new Error('the simulated provider does not emulate an LLM judge; the heuristic verdict stands');
    },
  };
}

/** The run's adapter when the judge model is on the same provider, else that provider's own adapter, which needs its key. */
function judgeProvider(model: string, backend: Exclude<ResolvedBackend, 'sim'>, shared: Provider, o: ProviderPlanOptions, record: (p: Provider) => Provider): Provider {
  if (backend === 'openai-compatible') return shared;
  const profile = o.registry.resolve(model); // throws, naming the known models, for an unknown one
  if (profile.provider === backend) return shared;
  const other = profile.provider as Exclude<ResolvedBackend, 'sim'>;
  const keyVariable = KEY_VARIABLES[other];
  if (!keyVariable || !o.env[keyVariable]) throw new Error(`judge model '${model}' needs ${keyVariable ?? `a key for provider ${other}`} in the environment; it is not set`);
  return record(createRealProvider(other, { ...o, baseURL: null }));
}

/** One adapter for the whole run; keys are read here, at the edge, and go nowhere else. */
function createRealProvider(backend: Exclude<ResolvedBackend, 'sim'>, o: ProviderPlanOptions): Provider {
  const keyVariable = KEY_VARIABLES[backend]!;
  const apiKey = o.env[keyVariable] ?? '';
  const baseURL = o.baseURL ?? undefined;
  const common = {
    apiKey,
    registry: o.registry,
    keyVariable,
    ...(baseURL ? { baseURL } : {}),
    ...(o.requestTimeoutMs != null ? { timeoutMs: o.requestTimeoutMs } : {}),
    ...(o.maxRetries != null ? { maxRetries: o.maxRetries } : {}),
    ...(o.onRetry ? { onRetry: o.onRetry } : {}),
  };
  if (backend === 'anthropic') return createAnthropicProvider(common);
  return createOpenAIProvider({ ...common, providerName: backend });
}
