// v2 K-NN latency (harness §12: p95 ≤ 1 ms at 1k, ≤ 5 ms at 20k, 384 dims; seeds' §17.1 figures as the
// baseline). Prints one JSON object with, per store size: `vector_knn_ms`, the plain-JS contiguous-matrix
// cosine top-K (a floor for an unaccelerated scan), and `store_knn_ms`, the full blended findKNearest of a
// v2 store (structural + cosine + workload partition, as routing slot 4 runs it).
// Usage: npx tsx scripts/perf/knn-v2.ts [queries] [sizes, comma-separated]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { createSystemClock } from '../../runtime/core/clock.ts';
import type { Logger } from '../../runtime/core/logger.ts';
import { createVectorMatrix, l2Normalize, openPatternStore, type EmbeddingProvider } from '../../runtime/patterns/index.ts';
import { createFeatureGenerator, HAIKU, SONNET, seededRandom } from '../../runtime/patterns/test-support/feature-fixtures.ts';

const Q = Number(process.argv[2] ?? 300);
const SIZES = (process.argv[3] ?? '200,1000,5000,20000').split(',').map(Number);
const TARGET_P95_MS: Record<number, number> = { 1_000: 1, 20_000: 5 };
const SEED_P95_MS: Record<number, number> = { 200: 19.6, 1_000: 48.8, 5_000: 50.6, 20_000: 50.4 };
const DIM = 384;
const quiet: Logger = { log: () => {} };

function randomVector(rand: () => number): Float32Array {
  const v = new Float32Array(DIM);
  for (let i = 0; i < DIM; i++) v[i] = rand() * 2 - 1;
  return l2Normalize(v);
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return Number(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!.toFixed(4));
}

function time(fn: () => unknown): number[] {
  for (let i = 0; i < 50; i++) fn();
  const out: number[] = [];
  for (let i = 0; i < Q; i++) {
    const t0 = performance.now();
    fn();
    out.push(performance.now() - t0);
  }
  return out;
}

const provider: EmbeddingProvider = { provider_id: 'perf:random-384', dim: DIM, max_input_tokens: 0, embed: () => Promise.resolve([]), close: () => Promise.resolve() };
const result: Record<string, unknown> = { dim: DIM, queries: Q, k: 10 };
for (const n of SIZES) {
  const rand = seededRandom(n);
  const m = createVectorMatrix(DIM);
  for (let i = 0; i < n; i++) m.put(`fp_${i}`, randomVector(rand));
  const qs = Array.from({ length: 16 }, () => randomVector(rand));
  let qi = 0;
  const v = time(() => m.topK(qs[qi++ % qs.length]!, 10));

  const dir = mkdtempSync(join(tmpdir(), 'knn-v2-'));
  const store = openPatternStore(join(dir, 'p.db'), { logger: quiet, clock: createSystemClock(), fingerprintVersion: 'v2', embeddingProvider: provider, caps: { soft_cap_rows: n * 2, hard_cap_rows: n * 2 } });
  const gen = createFeatureGenerator(n);
  for (let i = 0; i < n; i++)
    store.record({ turn_id: `t${i}`, features: gen(), primary_model: i % 2 ? HAIKU : SONNET, success_score: 0.8, cost_usd: new Decimal('0.001'), latency_ms: 10, pricing_version: 'p', embedding: randomVector(rand) }, { session_id: 's', turn_id: null, parent_event_id: null });
  const fq = Array.from({ length: 16 }, () => gen());
  const s = time(() => store.findKNearest(fq[qi % 16]!, 10, { embedding: qs[qi++ % 16]! }));
  const size = store.size();
  store.close();
  rmSync(dir, { recursive: true, force: true });
  result[`n_${n}`] = {
    vector_knn_ms: { p50: pct(v, 50), p95: pct(v, 95) },
    store_knn_ms: { p50: pct(s, 50), p95: pct(s, 95), fingerprints: size.fingerprints, outcomes: size.outcomes },
    seed_p95_ms: SEED_P95_MS[n] ?? null,
    target_p95_ms: TARGET_P95_MS[n] ?? null,
    ...(TARGET_P95_MS[n] !== undefined ? { meets_target: pct(s, 95) <= TARGET_P95_MS[n]! } : {}),
  };
}
console.log(JSON.stringify(result));
