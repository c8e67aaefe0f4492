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
// sweep of cost weights. A plain K-NN cross-fit of the same shape runs in the same process as the floor: the
// same tasks, outer and inner folds, k = 10, cosine over the same vectors, the argmax of
// (1 − w)·mean score − w·normalised mean cost per weight. `protocol_cpu_over_baseline` is the ratio the goal
// (≤ 2) is about.
// Usage: npx tsx scripts/perf/matrix-crossfit.ts [--embedder local:hashing-384|local:use-lite|none]
//          [--workload routellm-mmlu] [--embedding-cache reports/.cache/matrix-embeddings.db]
//          [--weights one|sweep] [--setting unseen_tasks|new_workspace] [--no-baseline] [--sqlite-too]
// With --sqlite-too the setting is played again with its per-fold stores in SQLite files (on /dev/shm), as
// before the in-memory store, in the same process after the reported run: `sqlite_stores` holds that run's CPU and whether every
// pick (outer and nested) came out the same as the in-memory run's.
import { mkdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
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
const base = withBaseline && routing.provider ? await baseline(routing.provider, run.folds ?? [], run.nested !== undefined) : null;
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
      protocol_cpu_over_baseline: base ? +(cpu / Math.max(1, base.cpu_ms)).toFixed(2) : null,
      protocol_wall_over_baseline: base ? +(crossFitMs / Math.max(1, base.wall_ms)).toFixed(2) : null,
    },
    null,
    2,
  ),
);
await routing.provider?.close();

/**
 * The floor: a plain K-NN cross-fit of the protocol's shape over the same vectors. Per outer fold (and, when
 * nested, per inner fold of its training set), each held-out task's K most cosine-similar training tasks vote:
 * per model the mean recorded score and cost; per weight the model maximising (1 − w)·score − w·(cost − min)/(max − min).
 */
async function baseline(provider: EmbeddingProvider, folds: readonly number[], nested: boolean): Promise<{ wall_ms: number; cpu_ms: number; queries: number; agreement_with_protocol: number | null }> {
  const n = table.taskIds.length;
  const vs = await provider.embed(matrix.tasks.map((t) => t.text));
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const dim = provider.dim;
  const unit = new Float32Array(n * dim);
  vs.forEach((v, i) => {
    let norm = 0;
    for (let j = 0; j < dim; j++) norm += v[j]! * v[j]!;
    const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let j = 0; j < dim; j++) unit[i * dim + j] = v[j]! * inv;
  });
  const models = table.models.length;
  const cost = table.cost.map((row) => row.map((c) => c.toNumber()));
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
  const how = setting === 'unseen_tasks' ? 'tasks' : 'clusters';
  for (let f = 0; f < FOLDS; f++) {
    const test = folds.flatMap((x, t) => (x === f ? [t] : []));
    const train = folds.flatMap((x, t) => (x === f ? [] : [t]));
    if (!test.length) continue;
    knnFold(train, test, picks);
    if (!nested) continue;
    const inner = assignFolds(
      train.map((t) => matrix.tasks[t]!.cluster),
      INNER_FOLDS,
      how,
      1000 * (f + 1),
    );
    const innerPicks = weights.map(() => new Array<number>(n).fill(-1));
    for (let j = 0; j < INNER_FOLDS; j++)
      knnFold(
        train.filter((_, x) => inner[x] !== j),
        train.filter((_, x) => inner[x] === j),
        innerPicks,
      );
  }
  const wall = performance.now() - t0;
  const cpuUsed = cpuMs(process.cpuUsage(c0));
  let same = 0;
  let total = 0;
  weights.forEach((_, i) =>
    picks[i]!.forEach((p, t) => {
      if (p < 0) return;
      total++;
      if (p === run.picks[i]![t]) same++;
    }),
  );
  return { wall_ms: Math.round(wall), cpu_ms: cpuUsed, queries, agreement_with_protocol: total ? +(same / total).toFixed(3) : null };
}
