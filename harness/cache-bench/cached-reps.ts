// `bench run --cache on` for agent workloads: every rep's provider goes through one run-wide semantic
// cache (scope: the workload), so A3 with the cache on can be compared with it off. Agent requests offer
// tools or carry tool results, which both tiers refuse: the cache must change nothing here, and the
// comparison shows it. Every cache event goes to the trace under the session whose call caused it, and
// a served hit is that call's llm.call_completed row ($0, cache_tier set), so the report's cache figures
// come from the trace and `analyze --skip-execute` gives the same.
import { EmbeddingEngine } from '../../runtime/cache/embedding-engine.ts';
import { createCachedProvider, traceCacheSink } from '../../runtime/cache/cached-provider.ts';
import { SemanticCache } from '../../runtime/cache/semantic-cache.ts';
import { AdaptiveThresholdTuner, type ThresholdTunerConfig } from '../../runtime/cache/threshold-tuner.ts';
import type { EventBus } from '../../runtime/events/event.ts';
import type { EmbeddingProvider } from '../../runtime/patterns/embeddings/embedding-provider.ts';
import { createHashingProvider } from '../../runtime/patterns/embeddings/hashing-provider.ts';
import { costOf, type PriceTable } from '../../runtime/pricing/index.ts';
import type { Provider } from '../../runtime/providers/provider.ts';
import type { Workload } from '../workloads/workload.ts';

type ForRep = (workload: Workload, pass: string, rep: number) => Provider;

/** What the run's caches need besides the prices. */
export interface RunCacheOptions {
  /** The run's bus: cache events are emitted on it under the calling session. */
  bus: EventBus;
  /** Tier 2's threshold tuner (default: the learned bound at δ = 0.01). */
  tuner?: Partial<ThresholdTunerConfig>;
  /** Tier 2's embedder for a workload's cache (default: a fresh local:hashing-384, free); a paid one is priced from `prices`. */
  embedder?: () => EmbeddingProvider;
}

/** Wraps a run's per-rep provider factory with one cache per workload, kept for the whole run. */
export function withRunCache(forRep: ForRep, prices: PriceTable, options: RunCacheOptions): ForRep {
  const caches = new Map<string, SemanticCache>();
  const cacheFor = (name: string) => {
    let c = caches.get(name);
    if (!c)
      caches.set(
        name,
        (c = new SemanticCache({
          scope: { tenant: 'bench', workspace: name },
          embeddings: new EmbeddingEngine(options.embedder?.() ?? createHashingProvider(384), { prices }),
          tuner: new AdaptiveThresholdTuner(options.tuner),
          onEvent: traceCacheSink(options.bus),
          costOf: (r) => {
            const rates = prices.rates(r.model);
            return rates ? costOf(r.usage, rates).toFixed() : '0';
          },
        })),
      );
    return c;
  };
  return (workload, pass, rep) => createCachedProvider(forRep(workload, pass, rep), cacheFor(workload.spec.name));
}
