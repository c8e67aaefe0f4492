// `bench run --cache on` for agent workloads: every rep's provider goes through one run-wide semantic
// cache (scope: the workload), so A3 with the cache on can be compared with it off. Agent requests offer
// tools or carry tool results, which both tiers refuse: the cache must change nothing here, and the
// comparison shows it.
import { EmbeddingEngine } from '../../runtime/cache/embedding-engine.ts';
import { createCachedProvider } from '../../runtime/cache/cached-provider.ts';
import { SemanticCache } from '../../runtime/cache/semantic-cache.ts';
import { createHashingProvider } from '../../runtime/patterns/embeddings/hashing-provider.ts';
import { costOf, type PriceTable } from '../../runtime/pricing/index.ts';
import type { Provider } from '../../runtime/providers/provider.ts';
import type { Workload } from '../workloads/workload.ts';

type ForRep = (workload: Workload, pass: string, rep: number) => Provider;

/** Wraps a run's per-rep provider factory with one cache per workload, kept for the whole run. */
export function withRunCache(forRep: ForRep, prices: PriceTable): ForRep & { outcomes: () => { calls: number; served: number } } {
  const caches = new Map<string, SemanticCache>();
  let calls = 0;
  let served = 0;
  const cacheFor = (name: string) => {
    let c = caches.get(name);
    if (!c)
      caches.set(
        name,
        (c = new SemanticCache({
          scope: { tenant: 'bench', workspace: name },
          embeddings: new EmbeddingEngine(createHashingProvider(384)),
          costOf: (r) => {
            const rates = prices.rates(r.model);
            return rates ? costOf(r.usage, rates).toFixed() : '0';
          },
        })),
      );
    return c;
  };
  const wrapped = (workload: Workload, pass: string, rep: number): Provider => {
    const inner = createCachedProvider(forRep(workload, pass, rep), cacheFor(workload.spec.name));
    return {
      ...inner,
      async complete(request, signal) {
        calls++;
        const r = await inner.complete(request, signal);
        if (r.request_id.startsWith('cache_')) served++;
        return r;
      },
    };
  };
  return Object.assign(wrapped, { outcomes: () => ({ calls, served }) });
}
