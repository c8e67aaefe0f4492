// The gate's figures across thresholds, one process, each text embedded once (local:use-lite by default):
// - `sweep`: cache-adversarial at every fixed threshold the CLI allows (--cache-delta 1, prior offset -1 to 1
//   in steps of 0.05) and under the learned bound at several deltas once the ledger holds 400 agreeing labels
//   at every task type's floor (as after many genuine paraphrases), each at several offsets; prints the
//   must-miss queries served over the must-miss denominator;
// - `recall`: the cache streams at the documented settings (fixed 0.95 and 0.85, delta 0.05 and 0.10 for
//   cache-gptcache; default delta and fixed 0.85 for the others): hits, Tier 2 hits, wrong hits, must-miss served.
// One JSON line per (root, stream, setting). --root runs another checkout's cache code on the same embeddings
// (e.g. a copy of main before a gate change), several roots comma-separated.
//   npx tsx scripts/cache/gate-sweep.ts sweep|recall [--root <dir>[,<dir>]] [--embedder <id>] [--streams a,b] [--labels gptcache|audited] [--wrong]
// --labels audited reads cache-gptcache under the audited merges; --wrong adds each wrong hit (query, served, its class's own origin).
import { join, resolve } from 'node:path';
import type { EmbeddingProvider } from '../../runtime/patterns/embeddings/embedding-provider.ts';

const arg = (name: string): string | undefined => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};

/** The same provider, each distinct text embedded once for the whole process. */
function memoized(inner: EmbeddingProvider): EmbeddingProvider {
  const memo = new Map<string, Float32Array>();
  return {
    provider_id: inner.provider_id,
    dim: inner.dim,
    max_input_tokens: inner.max_input_tokens,
    async embed(texts: string[]): Promise<Float32Array[]> {
      const missing = [...new Set(texts.filter((t) => !memo.has(t)))];
      if (missing.length) (await inner.embed(missing)).forEach((v, i) => memo.set(missing[i]!, v));
      return texts.map((t) => memo.get(t)!);
    },
    close: () => inner.close(),
  };
}

/** Offsets from -1 to 1 in steps of 0.05 (the CLI's range for --cache-prior-offset). */
const OFFSETS = Array.from({ length: 41 }, (_, i) => Math.round((-1 + i * 0.05) * 100) / 100);
const WARM_DELTAS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5];
const WARM_OFFSETS = [-1, -0.5, -0.3, -0.2, -0.1, 0];

async function main(): Promise<void> {
  const mode = process.argv[2];
  if (mode !== 'sweep' && mode !== 'recall') throw new Error('usage: gate-sweep.ts sweep|recall [--root <dir>[,<dir>]] [--embedder <id>] [--streams a,b]');
  const here = resolve(new URL('../..', import.meta.url).pathname);
  const roots = (arg('--root') ?? here).split(',').map((r) => resolve(r));
  const { createEmbeddingProvider } = await import(join(here, 'runtime/patterns/embeddings/create-embedding-provider.ts'));
  const embedder = memoized(createEmbeddingProvider(arg('--embedder') ?? 'local:use-lite', { env: process.env }));
  try {
    for (const root of roots) {
      const { loadQueryStream } = await import(join(root, 'harness/cache-bench/load-stream.ts'));
      const { runStream } = await import(join(root, 'harness/cache-bench/run-stream.ts'));
      const { streamFigures } = await import(join(root, 'harness/cache-bench/stream-metrics.ts'));
      const { AdaptiveThresholdTuner, TASK_TYPES, newEntryThresholdState } = await import(join(root, 'runtime/cache/threshold-tuner.ts'));
      const { loadPriceTable } = await import(join(root, 'runtime/pricing/index.ts'));
      const prices = loadPriceTable();
      type Fig = { tiers: { tier: string; hits: number; wrong_hits: number; false_hit_rate_must_miss: { k: number; n: number } }[]; must_miss: { queries: number }; must_miss_classes_hit: string[] };
      const report = async (stream: string, setting: string, tuner: unknown) => {
        const s = loadQueryStream(join(root, 'workloads', stream), arg('--labels') ?? 'gptcache');
        const started = Date.now();
        const run = await runStream(s, { cache: true, embedder, prices, tuner });
        const f = streamFigures(run.records) as Fig;
        const tier = (t: string) => f.tiers.find((x) => x.tier === t)!;
        console.log(JSON.stringify({
          root, stream, setting, hits: tier('all').hits, semantic_hits: tier('semantic').hits, wrong: tier('all').wrong_hits,
          must_miss_served: tier('all').false_hit_rate_must_miss.k, must_miss: f.must_miss.queries, served: f.must_miss_classes_hit, ms: Date.now() - started,
          ...(process.argv.includes('--wrong') ? { wrong_hits: (run.records as { id: string; correct: boolean | null; matchedQuery: string | null }[]).filter((r) => r.correct === false).map((r) => ({ id: r.id, served: r.matchedQuery })) } : {}),
        }));
      };
      /** A tuner whose ledger already holds 400 agreeing labels at every task type's floor. */
      const warmed = (delta: number, priorOffset: number) => {
        const t = new AdaptiveThresholdTuner({ delta, priorOffset, exploreRate: 0 });
        for (const type of TASK_TYPES) for (let i = 0; i < 400; i++) t.record(type, t.getThreshold(type) + 0.002, true, newEntryThresholdState());
        return t;
      };
      if (mode === 'sweep') {
        for (const offset of OFFSETS) await report('cache-adversarial', `fixed offset ${offset}`, { delta: 1, priorOffset: offset });
        for (const delta of WARM_DELTAS) for (const offset of WARM_OFFSETS) await report('cache-adversarial', `learned delta ${delta} warmed, offset ${offset}`, warmed(delta, offset));
      } else {
        const streams = (arg('--streams') ?? 'cache-gptcache,cache-adversarial,cache-multiturn,cache-agent,cache-docflow').split(',');
        for (const stream of streams) {
          const settings: [string, unknown][] =
            stream === 'cache-gptcache'
              ? [['fixed 0.95', { delta: 1, priorOffset: 0.1 }], ['fixed 0.85', { delta: 1 }], ['delta 0.05', { delta: 0.05 }], ['delta 0.10', { delta: 0.1 }]]
              : [['delta 0.01 (default)', { delta: 0.01 }], ['fixed 0.85', { delta: 1 }]];
          for (const [name, tuner] of settings) await report(stream, name, tuner);
        }
      }
    }
  } finally {
    await embedder.close();
  }
}

await main();
