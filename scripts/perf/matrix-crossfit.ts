// Matrix cross-fit speed (issue 20 goal: a 14k-task cross-fit in under 60 s on 2 cores with
// local:hashing-384, and with local:use-lite once its embeddings are cached). Runs the shipped
// routellm-mmlu (14,037 tasks × 2 models) through the runtime's router, unseen-tasks setting, 5 folds,
// one cost_weight, on a v2 store with the given embedder. The first embedding pass (every task text
// embedded once, memoized for all folds) is timed apart from the cross-fit itself. Prints one JSON
// object, with the most outcomes / fingerprints a fold's store held under its caps.
// Usage: npx tsx scripts/perf/matrix-crossfit.ts [--embedder local:hashing-384|local:use-lite|none] [--workload routellm-mmlu]
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { DEFAULT_PATTERN_CAPS } from '../../runtime/patterns/index.ts';
import { loadOutcomeMatrix } from '../../harness/matrix/outcome-matrix.ts';
import { outcomeTable } from '../../harness/matrix/outcome-table.ts';
import { matrixRouting, playSetting, protocolDeps } from '../../harness/matrix/run-matrix.ts';

const TARGET_MS = 60_000;
const root = fileURLToPath(new URL('../../', import.meta.url));
const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1]! : dflt;
};
const embedder = arg('--embedder', 'local:hashing-384');
const workload = arg('--workload', 'routellm-mmlu');

const t0 = performance.now();
const matrix = await loadOutcomeMatrix(join(root, 'workloads', workload));
const loadMs = performance.now() - t0;
const table = outcomeTable(matrix);
const routing = matrixRouting(embedder === 'none' ? { fingerprintVersion: 'v1' } : { embeddingProvider: embedder }, process.env, root);
const deps = protocolDeps(matrix, table, routing, [0.1]);

let embedMs = 0;
if (routing.provider) {
  const t1 = performance.now();
  const texts = matrix.tasks.map((t) => t.text);
  for (let i = 0; i < texts.length; i += 256) await routing.provider.embed(texts.slice(i, i + 256));
  embedMs = performance.now() - t1;
}
const cpu0 = process.cpuUsage();
const t2 = performance.now();
const run = await playSetting('unseen_tasks', deps, 5, 0);
const crossFitMs = performance.now() - t2;
const cpu = process.cpuUsage(cpu0);
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
      load_ms: Math.round(loadMs),
      first_embedding_pass_ms: Math.round(embedMs),
      crossfit_wall_ms: Math.round(crossFitMs),
      crossfit_cpu_ms: Math.round((cpu.user + cpu.system) / 1000),
      target_ms: TARGET_MS,
      within_target: crossFitMs < TARGET_MS,
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
