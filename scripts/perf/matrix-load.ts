// Matrix workloads load streaming (issue 20: 14k tasks × 2 models and 500 × 24 in under 2 s).
// Loads the shipped workloads/routellm-mmlu (14,037 × 2, tokens priced from the price table) and a
// synthesized 500 × 24 matrix of the SWE-bench shape (recorded USD, calls, ~1.5 kB problem texts),
// three times each, and prints one JSON object: wall and CPU ms per run, file size, RSS and heap after.
// Usage: npx tsx scripts/perf/matrix-load.ts
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadOutcomeMatrix } from '../../harness/matrix/outcome-matrix.ts';

const TARGET_MS = 2_000;
const RUNS = 3;
const root = fileURLToPath(new URL('../../', import.meta.url));

/** A deterministic 500 × 24 matrix in the SWE-bench leaderboard's shape, written as a workload directory. */
function synthesizeSwebenchShape(tasks: number, models: number): string {
  const dir = join(tmpdir(), `matrix-load-${process.pid}`, 'synthetic-500x24');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'workload.yaml'), 'kind: matrix\nname: synthetic-500x24\ndescription: synthetic\nsuite_version: 1\noutcomes: outcomes.jsonl\nsource:\n  name: synthetic\n  licence: CC0-1.0\n');
  let s = 7;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const header = { outcome_matrix: 1, models: Array.from({ length: models }, (_, j) => ({ id: `entry-${j}`, price_source: 'recorded', label: `Entry ${j}` })) };
  const words = 'the function returns a wrong value when the input list is empty and raises instead of handling the edge case'.split(' ');
  const lines = [JSON.stringify(header)];
  for (let i = 0; i < tasks; i++) {
    const text = Array.from({ length: 250 }, () => words[Math.floor(rnd() * words.length)]).join(' ');
    const cells = Array.from({ length: models }, () => ({ score: rnd() < 0.6 ? 1 : 0, usd: (rnd() * 2).toFixed(6), calls: 5 + Math.floor(rnd() * 60) }));
    lines.push(JSON.stringify({ id: `repo${i % 12}__issue-${i}`, cluster: `repo${i % 12}`, text, cells }));
  }
  writeFileSync(join(dir, 'outcomes.jsonl'), `${lines.join('\n')}\n`);
  return dir;
}

async function measure(label: string, dir: string): Promise<Record<string, unknown>> {
  const ms: number[] = [];
  const cpu: number[] = [];
  let shape = { tasks: 0, models: 0 };
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const m = await loadOutcomeMatrix(dir);
    ms.push(Math.round(performance.now() - t0));
    // CPU time this process spent (user + system): on a shared machine wall time also counts waiting for a core.
    const c = process.cpuUsage(c0);
    cpu.push(Math.round((c.user + c.system) / 1000));
    shape = { tasks: m.tasks.length, models: m.models.length };
  }
  const mem = process.memoryUsage();
  return {
    shape: label,
    ...shape,
    file_mb: +(statSync(join(dir, 'outcomes.jsonl')).size / 1e6).toFixed(2),
    load_ms: ms,
    load_ms_first: ms[0],
    cpu_ms: cpu,
    under_target: Math.max(...ms) < TARGET_MS,
    rss_mb_after: Math.round(mem.rss / 1e6),
    heap_used_mb_after: Math.round(mem.heapUsed / 1e6),
  };
}

const synthetic = synthesizeSwebenchShape(500, 24);
try {
  const results = [await measure('routellm-mmlu 14k x 2 (price-table tokens)', join(root, 'workloads', 'routellm-mmlu')), await measure('synthetic 500 x 24 (recorded USD)', synthetic)];
  process.stdout.write(`${JSON.stringify({ target_ms: TARGET_MS, runs: RUNS, results })}\n`);
} finally {
  rmSync(join(synthetic, '..'), { recursive: true, force: true });
}
