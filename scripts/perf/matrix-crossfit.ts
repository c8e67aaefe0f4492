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
// Usage: npx tsx scripts/perf/matrix-crossfit.ts [--embedder local:hashing-384|local:use-lite|none]
//          [--workload routellm-mmlu] [--embedding-cache reports/.cache/matrix-embeddings.db]
import { mkdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { createSystemClock } from '../../runtime/core/clock.ts';
import { createEmbeddingCache, createEmbeddingProvider, DEFAULT_PATTERN_CAPS, upgradeToV2, type EmbeddingProvider } from '../../runtime/patterns/index.ts';
import { loadOutcomeMatrix } from '../../harness/matrix/outcome-matrix.ts';
import { outcomeTable } from '../../harness/matrix/outcome-table.ts';
import { matrixRouting, memoizedProvider, playSetting, protocolDeps, type MatrixRouting } from '../../harness/matrix/run-matrix.ts';

const TARGET_MS = 60_000;
const root = fileURLToPath(new URL('../../', import.meta.url));
const arg = (name: string, dflt: string | null) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1]! : dflt;
};
const embedder = arg('--embedder', 'local:hashing-384')!;
const workload = arg('--workload', 'routellm-mmlu')!;
const cachePath = arg('--embedding-cache', null);
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
const deps = protocolDeps(matrix, table, routing, [0.1]);

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
const run = await playSetting('unseen_tasks', deps, 5, 0);
const crossFitMs = performance.now() - t2;
const cpu = cpuMs(process.cpuUsage(c2));
console.log(
  JSON.stringify(
    {
      workload,
      tasks: table.taskIds.length,
      models: table.models.length,
      folds: 5,
      cost_weights: 1,
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
    },
    null,
    2,
  ),
);
await routing.provider?.close();
