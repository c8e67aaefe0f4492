// Semantic cache latency (issue 16 goals): Tier 1 exact lookup p95 < 0.1 ms; Tier 2 vector search p95
// <= 1 ms at 10k entries in one partition (384 and 512 dims, random and embedded vectors), embedding excluded (embedding timed separately); all-tiers-miss
// overhead p95 <= 60 ms. Prints one JSON object.
// Usage: npx tsx scripts/perf/cache-lookup.ts [queries] [embedders, comma-separated] [embedders for the
// Tier 2 search on 10k real embeddings, default local:hashing-384; local:use-lite adds about 3 minutes]
import { performance } from 'node:perf_hooks';
import { EmbeddingEngine } from '../../runtime/cache/embedding-engine.ts';
import { SemanticCache } from '../../runtime/cache/semantic-cache.ts';
import { AdaptiveThresholdTuner } from '../../runtime/cache/threshold-tuner.ts';
import { InMemoryVectorDatabase } from '../../runtime/cache/vector-database.ts';
import { createEmbeddingRows } from '../../runtime/patterns/embeddings/embedding-rows.ts';
import { createEmbeddingProvider } from '../../runtime/patterns/embeddings/create-embedding-provider.ts';
import { l2Normalize } from '../../runtime/patterns/embeddings/embedding-provider.ts';
import { seededRandom } from '../../runtime/core/seeded-random.ts';
import type { CanonicalRequest } from '../../runtime/types/request.ts';
import type { CanonicalResponse } from '../../runtime/types/response.ts';

const Q = Number(process.argv[2] ?? 300);
const EMBEDDERS = (process.argv[3] ?? 'local:hashing-384,local:use-lite').split(',');
const SEARCH_EMBEDDERS = (process.argv[4] ?? 'local:hashing-384').split(',');
const ENTRIES = 10_000;

function pct(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return Number(s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!.toFixed(4));
}
const summary = (us: number[]) => ({ p50_ms: pct(us, 50) / 1000, p95_ms: pct(us, 95) / 1000, n: us.length });

const WORDS = 'cache model route token price answer query vector index tenant partition paraphrase workload agent tool result error bound entity number'.split(' ');
function sentence(rand: () => number, i: number): string {
  const n = 8 + Math.floor(rand() * 10);
  return `Question ${i}: ${Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ')}?`;
}
const req = (text: string): CanonicalRequest => ({ model: 'anthropic:claude-haiku-4-5', system: 'You answer questions.', system_volatile: null, tools: [], messages: [{ role: 'user', content: [{ type: 'text', text }] }], temperature: 0, max_tokens: 256 });
const answer = (text: string): CanonicalResponse => ({ model: 'anthropic:claude-haiku-4-5', content: [{ type: 'text', text }], stop_reason: 'end_turn', usage: { input_tokens: 50, output_tokens: 20, cached_input_tokens: 0, cache_creation_input_tokens: 0 }, latency_ms: 0, request_id: 'r' });

async function tier1(): Promise<object> {
  const rand = seededRandom(1);
  const cache = new SemanticCache({ scope: { tenant: 't', workspace: 'w' }, costOf: () => '0.001', tiers: { exact: true, semantic: false }, maxEntries: ENTRIES + 10 });
  const texts = Array.from({ length: ENTRIES }, (_, i) => sentence(rand, i));
  for (const t of texts) await cache.warm(req(t), () => Promise.resolve(answer(t)));
  const hit: number[] = [];
  for (let i = 0; i < Q + 50; i++) {
    const out = await cache.complete(req(texts[Math.floor(rand() * ENTRIES)]!), () => Promise.reject(new Error('expected a hit')));
    if (i >= 50) hit.push(out.exactLookupUs);
  }
  return { entries: ENTRIES, hit_lookup: summary(hit), target_p95_ms: 0.1 };
}

/** Times `search` over Q queries after 50 warm-up ones. */
function timeSearch(queries: () => Float32Array, search: (q: Float32Array) => void): ReturnType<typeof summary> {
  const us: number[] = [];
  for (let i = 0; i < Q + 50; i++) {
    const q = queries();
    const t0 = performance.now();
    search(q);
    if (i >= 50) us.push((performance.now() - t0) * 1000);
  }
  return summary(us);
}

// Random unit vectors, plus, under the same machine load, one float32 SIMD pass over every row (what the
// index did before it pruned with int8 bounds) as a reference for how much the pruning saves.
function tier2Search(dim: number): object {
  const rand = seededRandom(2);
  const db = new InMemoryVectorDatabase(dim);
  const rows = createEmbeddingRows(dim, ENTRIES);
  const vec = () => l2Normalize(Float32Array.from({ length: dim }, () => rand() * 2 - 1));
  for (let i = 0; i < ENTRIES; i++) {
    const v = vec();
    db.upsert([{ id: `e${i}`, partition: 'p', vector: v }]);
    rows.set(i, v);
  }
  const search = timeSearch(vec, (q) => db.query('p', q, 5));
  const fullScan = timeSearch(vec, (q) => rows.dots(q, ENTRIES));
  return { dim, entries_in_partition: ENTRIES, vectors: 'random unit', search, float32_full_scan_only: fullScan, target_p95_ms: 1 };
}

// Real embeddings of the generated questions (few words, so many near neighbours): the pruning's harder case.
async function tier2SearchEmbedded(embedderId: string): Promise<object> {
  const provider = createEmbeddingProvider(embedderId, { env: process.env });
  const rand = seededRandom(4);
  const texts = Array.from({ length: ENTRIES + Q + 50 }, (_, i) => sentence(rand, i));
  const vectors: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += 100) vectors.push(...(await provider.embed(texts.slice(i, i + 100))));
  await provider.close();
  const dim = vectors[0]!.length;
  const db = new InMemoryVectorDatabase(dim);
  for (let i = 0; i < ENTRIES; i++) db.upsert([{ id: `e${i}`, partition: 'p', vector: vectors[i]! }]);
  let next = ENTRIES;
  const search = timeSearch(() => vectors[next++]!, (q) => db.query('p', q, 5));
  return { dim, entries_in_partition: ENTRIES, vectors: `${embedderId} of generated questions`, search, target_p95_ms: 1 };
}

async function missOverhead(embedderId: string): Promise<object> {
  const provider = createEmbeddingProvider(embedderId, { env: process.env });
  const engine = new EmbeddingEngine(provider, { memoSize: 0 });
  const rand = seededRandom(3);
  // Time embedding alone first (also loads the model, so the cache timings below exclude the load).
  const embedUs: number[] = [];
  const n = embedderId === 'local:use-lite' ? Math.min(Q, 60) : Q;
  for (let i = 0; i < n + 5; i++) {
    const t0 = performance.now();
    await engine.embedText(sentence(rand, 100_000 + i));
    if (i >= 5) embedUs.push((performance.now() - t0) * 1000);
  }
  const cache = new SemanticCache({ scope: { tenant: 't', workspace: 'w' }, embeddings: engine, costOf: () => '0.001', maxEntries: ENTRIES + 10, tuner: new AdaptiveThresholdTuner() });
  // Fill Tier 2 with vectors directly through warm() on the cheap path: random texts, one partition.
  const fillTexts = Array.from({ length: embedderId === 'local:use-lite' ? 1000 : ENTRIES }, (_, i) => sentence(rand, i));
  for (const t of fillTexts) await cache.warm(req(t), () => Promise.resolve(answer(t)));
  const miss: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = `Unrelated ${i} ${sentence(rand, 200_000 + i)} with numbers ${i * 7}`;
    const out = await cache.complete(req(t), () => Promise.resolve(answer(t)));
    if (out.servedBy === null) miss.push(out.lookupUs);
  }
  await provider.close();
  return { embedder: embedderId, entries: fillTexts.length, embed: summary(embedUs), all_tiers_miss_overhead: summary(miss), target_p95_ms: 60 };
}

const result = {
  script: 'cache-lookup',
  node: process.version,
  tier1_exact: await tier1(),
  tier2_search: [tier2Search(384), tier2Search(512)],
  miss_overhead: [] as object[],
};
for (const e of SEARCH_EMBEDDERS) result.tier2_search.push(await tier2SearchEmbedded(e));
for (const e of EMBEDDERS) result.miss_overhead.push(await missOverhead(e));
console.log(JSON.stringify(result));
