// local:use-lite costs (issue 13 item 6): model load, then ms per text embedded one at a time (the
// learning loop's unit: embedForRecording embeds one turn's text on a cache miss) and in batches, and
// the routing path's cost with this embedder, which is one embedding-cache read (it never embeds).
// Prints one JSON object. Usage: npx tsx scripts/perf/embedding-use-lite.ts [texts]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createSystemClock } from '../../runtime/core/clock.ts';
import { createEmbeddingCache, createUseLiteProvider, upgradeToV2, USE_LITE_PROVIDER_ID } from '../../runtime/patterns/index.ts';

const N = Number(process.argv[2] ?? 60);

const SUBJECTS = ['the date parser', 'the billing module', 'the CLI flag parser', 'a recursive tree walker', 'the auth middleware', 'the CSV importer'];
const ASKS = [
  'Fix the failing test in',
  'Refactor, keeping the public contract of',
  'Write a short design note explaining',
  'Find and fix the off-by-one error in',
  'Add edge-case tests (empty input, unicode, very long lines) for',
];
/** Turn-like texts of 6 to ~120 words, the lengths a user message has in the shipped workloads. */
function texts(n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const head = `${ASKS[i % ASKS.length]} ${SUBJECTS[i % SUBJECTS.length]}.`;
    const detail = ' It must keep working for existing callers and the change should stay small.'.repeat(i % 8);
    return `${head}${detail} (ticket ${i})`;
  });
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
const round = (x: number) => Math.round(x * 1000) / 1000;

const provider = createUseLiteProvider();
const corpus = texts(N);

// Cold: the first embed loads the weights (~28 MB from node_modules) and builds the graph.
const t0 = performance.now();
await provider.embed(['warm up the model']);
const loadMs = performance.now() - t0;

const single: number[] = [];
const vectors: Float32Array[] = [];
for (const t of corpus) {
  const s = performance.now();
  const [v] = await provider.embed([t]);
  single.push(performance.now() - s);
  vectors.push(v!);
}
single.sort((a, b) => a - b);

const tb = performance.now();
await provider.embed(corpus);
const batchedPerText = (performance.now() - tb) / N;

// The routing path with this embedder: one cache read per turn (512-dim vectors).
const dir = mkdtempSync(join(tmpdir(), 'use-lite-perf-'));
const db = new Database(join(dir, 'p.db'));
db.pragma('journal_mode = WAL');
upgradeToV2(db);
const cache = createEmbeddingCache(db, createSystemClock(), { max_rows: 10_000, max_age_days: 90 });
cache.putMany(USE_LITE_PROVIDER_ID, corpus.map((text, i) => ({ text, vector: vectors[i]! })));
const reads: number[] = [];
for (let r = 0; r < 20; r++)
  for (const t of corpus) {
    const s = performance.now();
    cache.get(USE_LITE_PROVIDER_ID, t);
    reads.push(performance.now() - s);
  }
reads.sort((a, b) => a - b);
db.close();
rmSync(dir, { recursive: true, force: true });

console.log(
  JSON.stringify({
    provider: USE_LITE_PROVIDER_ID,
    dim: provider.dim,
    texts: N,
    load_and_first_embed_ms: round(loadMs),
    embed_ms_per_text_p50: round(quantile(single, 0.5)),
    embed_ms_per_text_p95: round(quantile(single, 0.95)),
    embed_ms_per_text_max: round(single.at(-1)!),
    batched_ms_per_text: round(batchedPerText),
    routing_path: 'embedding-cache read only (PatternStoreV2.cachedEmbedding); embedding runs in the learning loop',
    routing_cache_read_ms_p50: round(quantile(reads, 0.5)),
    routing_cache_read_ms_p95: round(quantile(reads, 0.95)),
  }),
);
