// Slot-4 K-NN: p50/p95 of PatternStore.recommend() (k = 10) at 200, 1k, 5k and 20k outcome rows,
// against spec §12 (p95 <= 0.3 ms at 1k, <= 1 ms at 20k). Two corpora: `mixed` (80% of turns carry a
// workload id, one to three models per fingerprint) and `worst` (no workload ids, so nothing can be
// pruned by the workload partition, and one model per fingerprint, so as many fingerprints as rows).
// Prints one JSON object. Usage: npx tsx scripts/perf/knn.ts [queries-per-size] [uniform|similarity_weighted] [min_similarity]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { createSystemClock } from '../../runtime/core/clock.ts';
import type { Logger } from '../../runtime/core/logger.ts';
import { openPatternStore, type PatternStore, type StructuralFeatures } from '../../runtime/patterns/index.ts';
import { createFeatureGenerator, HAIKU, OPUS, SONNET, seededRandom } from '../../runtime/patterns/test-support/feature-fixtures.ts';

const QUERIES = Number(process.argv[2] ?? 5_000);
const WARMUP = 500;
const SIZES = [200, 1_000, 5_000, 20_000];
const TARGETS_MS: Record<number, number> = { 1_000: 0.3, 20_000: 1 };
const MODELS = [HAIKU, SONNET, OPUS, 'openai:gpt-5-mini', 'openai:gpt-5'];
const SCORING = (process.argv[3] ?? 'uniform') as 'uniform' | 'similarity_weighted';
const MIN_SIMILARITY = Number(process.argv[4] ?? 0);
if (SCORING !== 'uniform' && SCORING !== 'similarity_weighted') throw new Error(`scoring '${String(SCORING)}': use uniform or similarity_weighted`);
const OPTIONS = { cost_weight: 0.05, min_confidence: 0.05, min_sample_size: 5, k: 10, scoring: SCORING, min_similarity: MIN_SIMILARITY };

const quiet: Logger = { log: () => {} };

type Corpus = 'mixed' | 'worst';

/** A feature source for the corpus. */
function generator(corpus: Corpus, seedValue: number): () => StructuralFeatures {
  const next = createFeatureGenerator(seedValue);
  return corpus === 'mixed' ? next : () => ({ ...next(), workload_id: null });
}

/** Fills a store with `rows` outcome rows. */
function seed(store: PatternStore, rows: number, corpus: Corpus): number {
  const next = generator(corpus, rows);
  const rnd = seededRandom(rows + 1);
  let written = 0;
  let turn = 0;
  const t0 = performance.now();
  while (written < rows) {
    const f = next();
    const models = corpus === 'mixed' ? 1 + Math.floor(rnd() * 3) : 1;
    for (let m = 0; m < models && written < rows; m++) {
      const r = store.record(
        {
          turn_id: `t${turn++}`,
          features: f,
          primary_model: MODELS[(m + Math.floor(rnd() * MODELS.length)) % MODELS.length]!,
          success_score: Math.round(rnd() * 100) / 100,
          cost_usd: new Decimal(Math.floor(rnd() * 50_000)).div(1_000_000),
          latency_ms: 200 + rnd() * 3_000,
          pricing_version: '2026-05-01',
        },
        { session_id: 'perf', turn_id: null, parent_event_id: null },
      );
      if (r.sample_size_after === 1) written++;
    }
  }
  return performance.now() - t0;
}

const pct = (sorted: Float64Array, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
const round = (x: number) => Math.round(x * 10_000) / 10_000;

const dir = mkdtempSync(join(tmpdir(), 'metis-perf-knn-'));
const results: Record<string, unknown>[] = [];
let pass = true;
try {
  const runs: [Corpus, number][] = [...SIZES.map((n): [Corpus, number] => ['mixed', n]), ['worst', 1_000], ['worst', 20_000]];
  for (const [corpus, size] of runs) {
    const path = join(dir, `patterns-${corpus}-${size}.db`);
    const caps = { soft_cap_rows: 50_000, hard_cap_rows: 50_000 };
    const writer = openPatternStore(path, { logger: quiet, clock: createSystemClock(), caps });
    const seedMs = seed(writer, size, corpus);
    writer.close();
    // A fresh instance, as a new run would open it: includes the load of the in-memory index.
    const t0 = performance.now();
    const store = openPatternStore(path, { logger: quiet, clock: createSystemClock(), caps });
    store.recommend(createFeatureGenerator(0)(), OPTIONS);
    const openMs = performance.now() - t0;
    const queries = generator(corpus, size + 7);
    const qs = Array.from({ length: QUERIES + WARMUP }, queries);
    let fired = 0;
    for (let i = 0; i < WARMUP; i++) store.recommend(qs[i]!, OPTIONS);
    const t = new Float64Array(QUERIES);
    for (let i = 0; i < QUERIES; i++) {
      const q0 = performance.now();
      const rec = store.recommend(qs[WARMUP + i]!, OPTIONS);
      t[i] = performance.now() - q0;
      if (rec.chosen_model) fired++;
    }
    t.sort();
    const p95 = pct(t, 0.95);
    const target = TARGETS_MS[size] ?? null;
    if (target !== null && p95 > target) pass = false;
    results.push({
      corpus,
      outcomes: store.size().outcomes,
      fingerprints: store.size().fingerprints,
      p50_ms: round(pct(t, 0.5)),
      p95_ms: round(p95),
      p99_ms: round(pct(t, 0.99)),
      target_p95_ms: target,
      recommendations_made: fired,
      open_and_first_query_ms: round(openMs),
      record_per_row_ms: round(seedMs / size),
    });
    store.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(JSON.stringify({ bench: 'pattern_knn_recommend', k: OPTIONS.k, scoring: SCORING, min_similarity: MIN_SIMILARITY, queries: QUERIES, sizes: results, pass }));
