// Matrix cross-fit speed (issue 20 goal 3: a 14k-task cross-fit in under 60 s on 2 cores with
// local:hashing-384, and with local:use-lite once its embeddings are cached). Runs the shipped
// routellm-mmlu (14,037 tasks × 2 models) through the runtime's router, unseen-tasks setting, 5 folds,
// one cost_weight, on a v2 store with the given embedder (v1 with --embedder none).
// The first embedding pass (every task text embedded once, memoized for all folds) is timed apart from
// the cross-fit. With --embedding-cache FILE the vectors are also kept in that SQLite file between runs
// (the pattern store's own embedding_cache table), so a second run of a slow embedder (use-lite) starts
// with its embeddings cached and reports how many it found there.
// Prints one JSON object: wall and CPU ms of each phase, the load average at start and end (the machine is
// shared: CPU time is the fairer figure), and the most outcomes / fingerprints a fold's store held under its caps.
// The setting is played as `bench run` plays it (nested choice included); with --weights sweep at the default
// sweep of cost weights. A plain K-NN cross-fit of the same shape is the floor, in the same run: the
// same tasks, outer and inner folds, k = 10, cosine over the same vectors, the argmax of
// (1 − w)·mean score − w·normalised mean cost per weight. Twice: in TypeScript in this process (one scalar dot
// product per pair, `protocol_cpu_over_baseline`), and in numpy by python3 when it can import numpy
// (scripts/perf/numpy-crossfit.py: BLAS matrix products, `protocol_cpu_over_numpy`). The goal (≤ 2× a numpy
// cross-fit's CPU) is about the second; the first only flatters the protocol.
// Usage: npx tsx scripts/perf/matrix-crossfit.ts [--embedder local:hashing-384|local:use-lite|none]
//          [--workload routellm-mmlu] [--embedding-cache reports/.cache/matrix-embeddings.db]
//          [--weights one|sweep] [--setting unseen_tasks|new_workspace] [--no-baseline] [--no-numpy] [--sqlite-too]
// With --sqlite-too the setting is played again with its per-fold stores in SQLite files (on /dev/shm), as
// before the in-memory store, in the same process after the reported run: `sqlite_stores` holds that run's CPU and whether every
// pick (outer and nested) came out the same as the in-memory run's.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import Database from 'better-sqlite3';
import { createSystemClock } from '../../runtime/core/clock.ts';
import { createEmbeddingCache, createEmbeddingProvider, DEFAULT_PATTERN_CAPS, upgradeToV2, type EmbeddingProvider } from '../../runtime/patterns/index.ts';
import { loadOutcomeMatrix } from '../../harness/matrix/outcome-matrix.ts';
import { outcomeTable } from '../../harness/matrix/outcome-table.ts';
import { assignFolds } from '../../harness/matrix/matrix-folds.ts';
import { DEFAULT_COST_WEIGHTS, INNER_FOLDS, matrixRouting, memoizedProvider, playSetting, protocolDeps, type MatrixRouting } from '../../harness/matrix/run-matrix.ts';

const TARGET_MS = 60_000;
const root = fileURLToPath(new URL('../../', import.meta.url));
const arg = (name: string, dflt: string | null) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1]! : dflt;
};
const embedder = arg('--embedder', 'local:hashing-384')!;
const workload = arg('--workload', 'routellm-mmlu')!;
const cachePath = arg('--embedding-cache', null);
const weightsArg = arg('--weights', 'one')!;
const setting = arg('--setting', 'unseen_tasks') as 'unseen_tasks' | 'new_workspace';
const withBaseline = !process.argv.includes('--no-baseline');
const withNumpy = !process.argv.includes('--no-numpy');
const sqliteToo = process.argv.includes('--sqlite-too');
const FOLDS = 5;
const K = 10;
if (!['one', 'sweep'].includes(weightsArg)) throw new Error(`--weights: one or sweep, got ${weightsArg}`);
if (!['unseen_tasks', 'new_workspace'].includes(setting)) throw new Error(`--setting: unseen_tasks or new_workspace, got ${setting}`);
const weights: readonly number[] = weightsArg === 'sweep' ? DEFAULT_COST_WEIGHTS : [0.1];
const load = () => loadavg().map((x) => +x.toFixed(2));
const cpuMs = (c: NodeJS.CpuUsage) => Math.round((c.user + c.system) / 1000);

/** `inner` behind a persistent vector cache in `path` (provider id + SHA-256 of the text → vector); counts what it found. */
function diskCached(inner: EmbeddingProvider, path: string): EmbeddingProvider & { found(): number } {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  upgradeToV2(db);
  const cache = createEmbeddingCache(db, createSystemClock(), { max_rows: 10_000_000, max_age_days: 3650 });
  let found = 0;
  return {
    provider_id: inner.provider_id,
    dim: inner.dim,
    max_input_tokens: inner.max_input_tokens,
    async embed(texts) {
      const out = texts.map((t) => cache.get(inner.provider_id, t));
      const missing = texts.filter((_, i) => !out[i]);
      found += texts.length - missing.length;
      if (missing.length) {
        const vs = await inner.embed(missing);
        cache.putMany(inner.provider_id, missing.map((text, i) => ({ text, vector: vs[i]! })));
        let j = 0;
        for (let i = 0; i < out.length; i++) if (!out[i]) out[i] = vs[j++]!;
      }
      return out as Float32Array[];
    },
    close: async () => {
      db.close();
      await inner.close();
    },
    found: () => found,
  };
}

const loadStart = load();
const t0 = performance.now();
const c0 = process.cpuUsage();
const matrix = await loadOutcomeMatrix(join(root, 'workloads', workload));
const loadMs = performance.now() - t0;
const loadCpu = process.cpuUsage(c0);
const table = outcomeTable(matrix);
let routing: MatrixRouting = matrixRouting(embedder === 'none' ? { fingerprintVersion: 'v1' } : { embeddingProvider: embedder }, process.env, root);
let disk: ReturnType<typeof diskCached> | null = null;
if (routing.provider && cachePath) {
  await routing.provider.close();
  disk = diskCached(createEmbeddingProvider(embedder, { env: process.env }), resolve(root, cachePath));
  routing = { ...routing, provider: memoizedProvider(disk) };
}
const deps = protocolDeps(matrix, table, routing, weights);

let embedMs = 0;
let embedCpu = 0;
if (routing.provider) {
  const t1 = performance.now();
  const c1 = process.cpuUsage();
  const texts = matrix.tasks.map((t) => t.text);
  for (let i = 0; i < texts.length; i += 256) await routing.provider.embed(texts.slice(i, i + 256));
  embedMs = performance.now() - t1;
  embedCpu = cpuMs(process.cpuUsage(c1));
}
const c2 = process.cpuUsage();
const t2 = performance.now();
// As `bench run` plays the setting (with its nested choice of the operating point).
const run = await playSetting(setting, deps, FOLDS, 0);
const crossFitMs = performance.now() - t2;
const cpu = cpuMs(process.cpuUsage(c2));
let sqliteRun: { picks: unknown; nested: unknown; wall_ms: number; cpu_ms: number } | null = null;
// Second, so any warm-up of the process (JIT, lazy imports) favours the SQLite run, not the one reported.
if (sqliteToo) {
  const c = process.cpuUsage();
  const t = performance.now();
  const r = await playSetting(setting, protocolDeps(matrix, table, routing, weights, 0, undefined, 'sqlite'), FOLDS, 0);
  sqliteRun = { picks: r.picks, nested: r.nested, wall_ms: Math.round(performance.now() - t), cpu_ms: cpuMs(process.cpuUsage(c)) };
}
const inputs = routing.provider && (withBaseline || withNumpy) ? await floorInputs(routing.provider, run.folds ?? [], run.nested !== undefined) : null;
const jsFloor = inputs && withBaseline ? jsBaseline(inputs) : null;
const base = jsFloor?.result ?? null;
// The numpy floor is checked against the TypeScript one's picks when both ran (the same cross-fit).
const numpy = inputs && withNumpy ? numpyBaseline(inputs, jsFloor?.picks ?? null) : null;
console.log(
  JSON.stringify(
    {
      workload,
      tasks: table.taskIds.length,
      models: table.models.length,
      folds: 5,
      setting,
      cost_weights: weights.length,
      nested: run.nested !== undefined,
      fingerprint_version: routing.choice.fingerprint_version,
      embedder: routing.choice.embedding_provider,
      cores: cpus().length,
      load_average_start: loadStart,
      load_average_end: load(),
      load_ms: Math.round(loadMs),
      load_cpu_ms: cpuMs(loadCpu),
      first_embedding_pass_ms: Math.round(embedMs),
      first_embedding_pass_cpu_ms: embedCpu,
      embeddings_found_in_cache: disk ? disk.found() : null,
      crossfit_wall_ms: Math.round(crossFitMs),
      crossfit_cpu_ms: cpu,
      target_ms: TARGET_MS,
      within_target_wall: crossFitMs < TARGET_MS,
      within_target_cpu: cpu < TARGET_MS,
      store_outcomes_max: run.store.outcomes_max,
      store_fingerprints_max: run.store.fingerprints_max,
      stores: run.store.stores,
      hard_cap_rows: DEFAULT_PATTERN_CAPS.hard_cap_rows,
      routed: run.picks[0]!.filter((p) => p >= 0).length,
      baseline: base,
      sqlite_stores: sqliteRun
        ? {
            crossfit_wall_ms: sqliteRun.wall_ms,
            crossfit_cpu_ms: sqliteRun.cpu_ms,
            picks_identical: isDeepStrictEqual(sqliteRun.picks, run.picks) && isDeepStrictEqual(sqliteRun.nested, run.nested),
            memory_cpu_over_sqlite: +(cpu / Math.max(1, sqliteRun.cpu_ms)).toFixed(2),
          }
        : null,
      numpy_baseline: numpy,
      protocol_cpu_over_baseline: base ? +(cpu / Math.max(1, base.cpu_ms)).toFixed(2) : null,
      protocol_wall_over_baseline: base ? +(crossFitMs / Math.max(1, base.wall_ms)).toFixed(2) : null,
      protocol_cpu_over_numpy: numpy?.available ? +(cpu / Math.max(1, numpy.cpu_ms)).toFixed(2) : null,
      protocol_wall_over_numpy: numpy?.available ? +(crossFitMs / Math.max(1, numpy.wall_ms)).toFixed(2) : null,
    },
    null,
    2,
  ),
);
await routing.provider?.close();

/** One fold the floors play: its held-out and training tasks, and the inner folds of its training set when nested. */
interface FoldPlan {
  train: number[];
  test: number[];
  inner: { train: number[]; test: number[] }[];
}

/** The floors' inputs: the unit vectors, each task's cost per model as numbers, and the folds the protocol played. */
interface FloorInputs {
  n: number;
  dim: number;
  unit: Float32Array;
  cost: number[][];
  folds: FoldPlan[];
}

async function floorInputs(provider: EmbeddingProvider, folds: readonly number[], nested: boolean): Promise<FloorInputs> {
  const n = table.taskIds.length;
  const vs = await provider.embed(matrix.tasks.map((t) => t.text));
  const dim = provider.dim;
  const unit = new Float32Array(n * dim);
  vs.forEach((v, i) => {
    let norm = 0;
    for (let j = 0; j < dim; j++) norm += v[j]! * v[j]!;
    const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let j = 0; j < dim; j++) unit[i * dim + j] = v[j]! * inv;
  });
  const how = setting === 'unseen_tasks' ? 'tasks' : 'clusters';
  const plan: FoldPlan[] = [];
  for (let f = 0; f < FOLDS; f++) {
    const test = folds.flatMap((x, t) => (x === f ? [t] : []));
    const train = folds.flatMap((x, t) => (x === f ? [] : [t]));
    if (!test.length) continue;
    const inner = nested ? assignFolds(train.map((t) => matrix.tasks[t]!.cluster), INNER_FOLDS, how, 1000 * (f + 1)) : null;
    plan.push({
      train,
      test,
      inner: inner ? Array.from({ length: INNER_FOLDS }, (_, j) => ({ train: train.filter((_, x) => inner[x] !== j), test: train.filter((_, x) => inner[x] === j) })) : [],
    });
  }
  return { n, dim, unit, cost: table.cost.map((row) => row.map((c) => c.toNumber())), folds: plan };
}

/** Share of the routed (task, weight) picks in which `picks` agrees with `other`'s (the protocol's by default). */
function agreement(picks: readonly (readonly number[])[], other: readonly (readonly number[])[] = run.picks): number | null {
  let same = 0;
  let total = 0;
  weights.forEach((_, i) =>
    picks[i]!.forEach((p, t) => {
      if (p < 0) return;
      total++;
      if (p === other[i]![t]) same++;
    }),
  );
  return total ? +(same / total).toFixed(3) : null;
}


/**
 * The floor in TypeScript: a plain K-NN cross-fit of the protocol's shape over the same vectors. Per outer fold
 * (and, when nested, per inner fold of its training set), each held-out task's K most cosine-similar training
 * tasks vote: per model the mean recorded score and cost; per weight the model maximising
 * (1 − w)·score − w·(cost − min)/(max − min). One scalar dot product per (query, training task): no numpy floor.
 */
function jsBaseline(input: FloorInputs): { result: { wall_ms: number; cpu_ms: number; queries: number; agreement_with_protocol: number | null }; picks: number[][] } {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const { n, dim, unit, cost } = input;
  const models = table.models.length;
  let queries = 0;
  const picks = weights.map(() => new Array<number>(n).fill(-1));
  const knnFold = (train: readonly number[], test: readonly number[], out: number[][]) => {
    const topS = new Float64Array(K);
    const topI = new Int32Array(K);
    for (const q of test) {
      queries++;
      topS.fill(-Infinity);
      topI.fill(-1);
      const qo = q * dim;
      for (const t of train) {
        const to = t * dim;
        let dot = 0;
        for (let j = 0; j < dim; j++) dot += unit[qo + j]! * unit[to + j]!;
        if (dot <= topS[K - 1]!) continue;
        let x = K - 1;
        while (x > 0 && topS[x - 1]! < dot) {
          topS[x] = topS[x - 1]!;
          topI[x] = topI[x - 1]!;
          x--;
        }
        topS[x] = dot;
        topI[x] = t;
      }
      const score = new Float64Array(models);
      const spend = new Float64Array(models);
      let got = 0;
      for (const t of topI)
        if (t >= 0) {
          got++;
          for (let m = 0; m < models; m++) {
            score[m] = score[m]! + table.score[t]![m]!;
            spend[m] = spend[m]! + cost[t]![m]!;
          }
        }
      const lo = Math.min(...spend);
      const spread = Math.max(...spend) - lo;
      weights.forEach((w, i) => {
        let best = 0;
        let bestU = -Infinity;
        for (let m = 0; m < models; m++) {
          const u = (1 - w) * (score[m]! / Math.max(1, got)) - (spread > 0 ? (w * (spend[m]! - lo)) / spread : 0);
          if (u > bestU) {
            bestU = u;
            best = m;
          }
        }
        out[i]![q] = best;
      });
    }
  };
  for (const fold of input.folds) {
    knnFold(fold.train, fold.test, picks);
    const innerPicks = weights.map(() => new Array<number>(n).fill(-1));
    for (const inner of fold.inner) knnFold(inner.train, inner.test, innerPicks);
  }
  const wall = performance.now() - t0;
  return { result: { wall_ms: Math.round(wall), cpu_ms: cpuMs(process.cpuUsage(c0)), queries, agreement_with_protocol: agreement(picks) }, picks };
}

/**
 * The floor the goal names: the same cross-fit in numpy (scripts/perf/numpy-crossfit.py: a matrix product per block
 * of held-out tasks, argpartition for the K best), run by python3 on the inputs written to a temporary folder. Its
 * CPU time counts every BLAS thread. Null with the reason when python3 or numpy is not there.
 */
function numpyBaseline(input: FloorInputs, tsFloorPicks: readonly (readonly number[])[] | null): { available: true; wall_ms: number; cpu_ms: number; queries: number; numpy_version: string; agreement_with_protocol: number | null; agreement_with_typescript_floor: number | null } | { available: false; reason: string } {
  const probe = spawnSync('python3', ['-c', 'import numpy'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return { available: false, reason: `python3 with numpy not found (${probe.error?.message ?? probe.stderr.trim().split('\n').at(-1)})` };
  const dir = mkdtempSync(join(tmpdir(), 'numpy-crossfit-'));
  try {
    writeFileSync(join(dir, 'vectors.f32'), new Uint8Array(input.unit.buffer, input.unit.byteOffset, input.unit.byteLength));
    writeFileSync(join(dir, 'plan.json'), JSON.stringify({ n: input.n, dim: input.dim, k: K, weights, score: table.score, cost: input.cost, folds: input.folds }));
    const r = spawnSync('python3', [join(root, 'scripts', 'perf', 'numpy-crossfit.py'), dir], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    if (r.status !== 0) throw new Error(`numpy-crossfit.py failed (exit ${r.status}): ${r.stderr}`);
    const out = JSON.parse(r.stdout) as { wall_ms: number; cpu_ms: number; queries: number; numpy_version: string; picks: number[][] };
    return { available: true, wall_ms: out.wall_ms, cpu_ms: out.cpu_ms, queries: out.queries, numpy_version: out.numpy_version, agreement_with_protocol: agreement(out.picks), agreement_with_typescript_floor: tsFloorPicks ? agreement(out.picks, tsFloorPicks) : null };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
