// Fast dev loop for slot 4's `learned` scoring (issue 27 item 4): cross-fits the prompt model on a matrix's
// DEV split directly (no store, no router), and prints APGR on call share of its predicted-gain ranking
// beside the per-cluster ranking, for unseen tasks (workload known) and a new workspace (workload null).
// Usage: npx tsx scripts/routing/prompt-model-dev.ts [workload=routellm-mmlu] [key=value ...] (PromptModelOptions overrides)
import { join } from 'node:path';
import { assignFolds } from '../../harness/matrix/matrix-folds.ts';
import { splitMatrix } from '../../harness/matrix/matrix-split.ts';
import { loadOutcomeMatrix } from '../../harness/matrix/outcome-matrix.ts';
import { trapezoidArea } from '../../harness/matrix/call-share.ts';
import { defaultPromptModelSettings } from '../../runtime/patterns/prompt-model-settings.ts';
import { PROMPT_TERMS_DIM } from '../../runtime/patterns/prompt-outcomes.ts';
import { hashedTerms, predictPrompt, trainPromptModel, type PromptModelOptions, type PromptOutcomeRow } from '../../runtime/patterns/prompt-model.ts';

const [workload = 'routellm-mmlu', ...overrides] = process.argv.slice(2);
const { lambda, cluster_prior, k_clusters, seed, price_exponent } = defaultPromptModelSettings();
const opts: PromptModelOptions = { dim: PROMPT_TERMS_DIM, lambda, cluster_prior, k_clusters, seed, price_exponent };
// rank=gain (default): by predicted strong − cheap gain; rank=per_dollar: by that gain per predicted extra dollar (what the router's utility orders by).
let rank: 'gain' | 'per_dollar' = 'gain';
for (const kv of overrides) {
  const [k, v] = kv.split('=');
  if (k === 'rank') rank = v === 'per_dollar' ? 'per_dollar' : 'gain';
  else (opts as unknown as Record<string, number>)[k!] = Number(v);
}
const m = splitMatrix(await loadOutcomeMatrix(join('workloads', workload)), 'dev');
const n = m.tasks.length;
const models = m.models.map((x) => x.id);
const score = m.cells.map((row) => row.map((c) => c.score));
const cost = m.cells.map((row) => row.map((c) => c.costUsd.toNumber()));
const meanCost = models.map((_, j) => cost.reduce((a, r) => a + r[j]!, 0) / n);
const strong = meanCost.indexOf(Math.max(...meanCost));
const weak = meanCost.indexOf(Math.min(...meanCost));
const terms = m.tasks.map((t) => hashedTerms(t.text, opts.dim));
const clusters = m.tasks.map((t) => t.cluster);

/** APGR (call share) of sending the top-s share by `gain` to the strong model, s in 1% steps. */
function apgr(gain: number[]): number {
  const order = gain.map((g, t) => ({ g, t })).sort((a, b) => b.g - a.g || a.t - b.t);
  let den = 0;
  for (let t = 0; t < n; t++) den += score[t]![strong]! - score[t]![weak]!;
  const pts = [];
  let num = 0;
  let k = 0;
  for (let s = 1; s < 100; s++) {
    const upto = Math.round((s / 100) * n);
    for (; k < upto; k++) num += score[order[k]!.t]![strong]! - score[order[k]!.t]![weak]!;
    pts.push({ x: upto / n, y: num / den });
  }
  return trapezoidArea(pts);
}

for (const setting of ['tasks', 'clusters'] as const) {
  const folds = assignFolds(clusters, 5, setting, 0);
  const known = setting === 'tasks';
  const learnedGain = new Array<number>(n).fill(0);
  const lookupGain = new Array<number>(n).fill(0);
  const t0 = performance.now();
  for (let f = 0; f < 5; f++) {
    const train = folds.flatMap((x, t) => (x === f ? [] : [t]));
    const rows: PromptOutcomeRow[] = train.flatMap((t) =>
      models.map((model, j) => ({ task_key: m.tasks[t]!.id, terms: terms[t]!, chars: m.tasks[t]!.text.length, workload_id: known ? clusters[t]! : null, model, score: score[t]![j]!, cost_usd: cost[t]![j]! })),
    );
    const pm = trainPromptModel(rows, opts);
    const cg = new Map<string, { s: number; n: number }>();
    for (const t of train) {
      const c = cg.get(clusters[t]!) ?? { s: 0, n: 0 };
      c.s += score[t]![strong]! - score[t]![weak]!;
      c.n++;
      cg.set(clusters[t]!, c);
    }
    for (let t = 0; t < n; t++) {
      if (folds[t] !== f) continue;
      const pr = predictPrompt(pm, terms[t]!, m.tasks[t]!.text.length, known ? clusters[t]! : null);
      const p = (id: string) => pr.find((x) => x.model === id)!;
      const g = p(models[strong]!).p - p(models[weak]!).p;
      learnedGain[t] = rank === 'gain' ? g : g / Math.max(1e-12, p(models[strong]!).cost_usd - p(models[weak]!).cost_usd);
      const c = cg.get(clusters[t]!);
      lookupGain[t] = c ? c.s / c.n : 0;
    }
  }
  const ms = performance.now() - t0;
  console.log(`${workload} dev ${known ? 'unseen_tasks' : 'new_workspace'} (${n} tasks): APGR call share learned ${apgr(learnedGain).toFixed(3)} · per-cluster ${apgr(lookupGain).toFixed(3)} · 5 folds trained+scored in ${ms.toFixed(0)} ms · rank ${rank} · ${JSON.stringify(opts)}`);
}
