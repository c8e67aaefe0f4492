// The Tier 2 vector index at scale (384 dims, one partition, k = 10): for each size and for random and
// clustered vectors, the build time, p50/p95 of an exact query, recall@10 against a brute-force float32
// scan, the bytes resident per row (the index's typed and WebAssembly memory, plus the JS heap's growth
// for ids and the id map, measured with --expose-gc), and in the same run the machine's memory-bandwidth floor
// (bandwidth-floor.ts): one single-threaded SIMD pass that only reads as many bytes as the index's int8
// rows hold. Query and floor are given in wall and in CPU time (a loaded machine stretches the wall time of
// whichever waits for a core). Goals: ≤ 0.6 KB resident per row; exact query at 1M ≤ 2× the floor.
// usearch (exact and HNSW) is reported when the npm package is installed; it is not a dependency.
// The ground truth is computed block by block during the build, so no float32 copy of the rows is held.
// Prints one JSON object. Usage: node --expose-gc --import tsx scripts/perf/knn-scale.ts [sizes, comma-separated] [queries]
// (sizes default 10000,100000,1000000; 4000000 builds a 4M random index, 6 GB of float32 rows on disk).
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { InMemoryVectorDatabase } from '../../runtime/cache/vector-database.ts';
import { seededRandom } from '../../runtime/core/seeded-random.ts';
import { createEmbeddingRows } from '../../runtime/patterns/embeddings/embedding-rows.ts';
import { dotsJs } from '../../runtime/patterns/embeddings/simd-dots.ts';
import { bandwidthFloor } from './bandwidth-floor.ts';

const SIZES = (process.argv[2] ?? '10000,100000,1000000').split(',').map(Number);
const QUERIES = Number(process.argv[3] ?? 40);
const DIM = 384;
const K = 10;
const BLOCK = 4_096;
/** Queries checked against the brute-force scan (each costs a regeneration pass at the largest sizes). */
const RECALL_QUERIES = 10;
const CENTRES = 1_000;

type Kind = 'random' | 'clustered';

const l2 = (v: Float32Array): Float32Array => {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  const inv = 1 / Math.sqrt(s);
  for (let i = 0; i < v.length; i++) v[i] = v[i]! * inv;
  return v;
};

/** Cluster centres shared by the clustered rows and queries. */
const centres = (() => {
  const rand = seededRandom(77);
  return Array.from({ length: CENTRES }, () => l2(Float32Array.from({ length: DIM }, () => rand() * 2 - 1)));
})();

/** Rows first..first+count-1 of a corpus, the same every call (seeded by block). */
function block(kind: Kind, b: number, count: number, out: Float32Array): void {
  const rand = seededRandom((kind === 'random' ? 1_000_003 : 2_000_003) + b);
  for (let r = 0; r < count; r++) {
    const v = out.subarray(r * DIM, (r + 1) * DIM);
    if (kind === 'random') for (let i = 0; i < DIM; i++) v[i] = rand() * 2 - 1;
    else {
      // A paraphrase-like cluster: a unit centre plus uniform noise of norm about 0.7 before normalising.
      const c = centres[Math.floor(rand() * CENTRES)]!;
      for (let i = 0; i < DIM; i++) v[i] = c[i]! + 0.06 * (rand() * 2 - 1);
    }
    l2(v);
  }
}

function queries(kind: Kind, n: number): Float32Array[] {
  const rand = seededRandom(kind === 'random' ? 5 : 6);
  return Array.from({ length: n }, () => {
    if (kind === 'random') return l2(Float32Array.from({ length: DIM }, () => rand() * 2 - 1));
    const c = centres[Math.floor(rand() * CENTRES)]!;
    return l2(Float32Array.from(c, (x) => x + 0.06 * (rand() * 2 - 1)));
  });
}

const gc = (globalThis as { gc?: () => void }).gc;
/** JS heap in use after a full collection: the ids and the id map, beside the index's typed memory. */
const heap = () => {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
};
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Number(s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]!.toFixed(3));
};

/** The exact top-K ids per query by a float32 SIMD scan of each block as it is built, best first, ties by id. */
function groundTruth(qs: Float32Array[]): { add(first: number, count: number, buf: Float32Array): void; ids(): string[][] } {
  const rows = createEmbeddingRows(DIM, BLOCK);
  const best = qs.map(() => [] as { id: string; score: number }[]);
  return {
    add(first, count, buf) {
      for (let r = 0; r < count; r++) rows.set(r, buf.subarray(r * DIM, (r + 1) * DIM));
      qs.forEach((q, qi) => {
        const d = rows.dots(q, count);
        const top = best[qi]!;
        for (let r = 0; r < count; r++) {
          if (top.length === K && d[r]! < top[K - 1]!.score) continue;
          top.push({ id: `v${first + r}`, score: d[r]! });
          top.sort((a, c) => c.score - a.score || (a.id < c.id ? -1 : 1));
          if (top.length > K) top.pop();
        }
      });
    },
    ids: () => best.map((t) => t.map((h) => h.id)),
  };
}

function measure(kind: Kind, n: number): Record<string, unknown> {
  const qs = queries(kind, QUERIES + 5);
  const checked = Math.min(RECALL_QUERIES, qs.length);
  // The brute-force answers are computed from each block while it is at hand; their time is not build time.
  const truth = groundTruth(qs.slice(0, checked));
  let truthMs = 0;
  const before = heap();
  const db = new InMemoryVectorDatabase(DIM);
  const buf = new Float32Array(BLOCK * DIM);
  const t0 = performance.now();
  for (let b = 0, first = 0; first < n; b++, first += BLOCK) {
    const count = Math.min(BLOCK, n - first);
    block(kind, b, count, buf);
    const recs = [];
    for (let r = 0; r < count; r++) recs.push({ id: `v${first + r}`, partition: 'p', vector: buf.subarray(r * DIM, (r + 1) * DIM) });
    db.upsert(recs);
    const g0 = performance.now();
    truth.add(first, count, buf);
    truthMs += performance.now() - g0;
  }
  const buildMs = performance.now() - t0 - truthMs;
  const heapPerRow = (heap() - before) / n;
  const times: number[] = [];
  const cpu: number[] = [];
  const answers: string[][] = [];
  qs.forEach((q, i) => {
    const c0 = process.cpuUsage();
    const q0 = performance.now();
    const hits = db.query('p', q, K);
    if (i >= 5) {
      times.push(performance.now() - q0);
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
    }
    answers.push(hits.map((h) => h.id));
  });
  const floor = bandwidthFloor(n * DIM);
  let found = 0;
  truth.ids().forEach((t, i) => (found += t.filter((id) => answers[i]!.includes(id)).length));
  const result = {
    build_s: Number((buildMs / 1000).toFixed(2)),
    query_ms: { p50: pct(times, 0.5), p95: pct(times, 0.95), n: times.length },
    floor_ms: floor.ms,
    p50_over_floor: Number((pct(times, 0.5) / floor.ms).toFixed(2)),
    // The same ratio in CPU time (process CPU per query against the floor pass's), less bent by a loaded machine.
    query_cpu_ms_p50: pct(cpu, 0.5),
    floor_cpu_ms: floor.cpu_ms,
    cpu_p50_over_floor: Number((pct(cpu, 0.5) / floor.cpu_ms).toFixed(2)),
    load_average: loadavg().map((x) => Number(x.toFixed(2))),
    bandwidth_gb_per_s: floor.gb_per_s,
    recall_at_10: found / (checked * K),
    recall_queries: checked,
    resident_vector_bytes_per_row: Math.round(db.residentBytes() / n),
    js_heap_bytes_per_row_ids_and_map: gc ? Math.round(heapPerRow) : null,
    resident_bytes_per_row_total: gc ? Math.round(db.residentBytes() / n + heapPerRow) : null,
  };
  db.close();
  return result;
}

/** usearch, if installed (it is not a dependency): exact and HNSW at the same sizes. */
async function usearchAvailable(): Promise<string | null> {
  try {
    await import('usearch' as string);
    return null;
  } catch {
    return 'the npm package usearch is not installed (not a dependency of this project)';
  }
}

const out: Record<string, unknown> = { dim: DIM, k: K, queries: QUERIES, gc_exposed: gc !== undefined, index: 'InMemoryVectorDatabase (exact)' };
for (const n of SIZES) {
  for (const kind of n > 1_000_000 ? (['random'] as const) : (['random', 'clustered'] as const)) {
    process.stderr.write(`knn-scale: ${kind} ${n} ...\n`);
    out[`${kind}_${n}`] = measure(kind, n);
  }
}
const missing = await usearchAvailable();
out['usearch'] = missing === null ? 'installed but not wired in this script' : { skipped: missing };
// A plain-JS float32 scan of one 4,096-row block, for scale against the SIMD paths.
const jsBlock = new Float32Array(BLOCK * DIM);
block('random', 0, BLOCK, jsBlock);
const one = new Float32Array(BLOCK);
const j0 = performance.now();
dotsJs(jsBlock, DIM, BLOCK, queries('random', 1)[0]!, one);
out['plain_js_float32_ms_per_1m_rows'] = Number((((performance.now() - j0) * 1_000_000) / BLOCK).toFixed(1));
console.log(JSON.stringify(out));
