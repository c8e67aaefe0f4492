// What the true oracle's truth costs a cold analyze: in a fresh process, simTruthFor over the shipped workloads
// and P(solved) of each (two models), the parsed-file cache warm (as under dist/); beside the floor, the file
// calls that checking each kept result against its file cannot avoid (a stat and a read of workload.yaml, a
// stat of its workspace/, check/ and sim.yaml, a read of one kept entry). The two alternate round by round.
//
//   npx tsx scripts/perf/oracle-truth-load.ts [--rounds 15]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { simTruthFor } from '../../harness/metrics/oracle-truth-source.ts';
import { loadModelRegistry } from '../../runtime/models/index.ts';
import type { Provenance } from '../../schemas/types/report.ts';

const WORKLOADS = join(import.meta.dirname, '..', '..', 'workloads');
const MODELS = ['haiku', 'sonnet'];

function flag(name: string): string | null {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? null) : null;
}

/** The shipped workloads with a sim script, as a sim run's report asks for them. */
function names(): string[] {
  return readdirSync(WORKLOADS)
    .filter((n) => existsSync(join(WORKLOADS, n, 'sim.yaml')))
    .sort();
}

/** One cold measurement in this process: milliseconds and CPU milliseconds of the truth (or the floor's file calls). */
function child(what: string, cache: string): void {
  const registry = loadModelRegistry();
  const asked = names();
  const kept = readdirSync(join(cache, 'parsed')).map((f) => join(cache, 'parsed', f));
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  if (what === 'floor') {
    asked.forEach((n, i) => {
      const dir = `${WORKLOADS}/${n}`;
      statSync(`${dir}/workload.yaml`);
      readFileSync(`${dir}/workload.yaml`);
      for (const f of ['workspace', 'check', 'sim.yaml']) statSync(`${dir}/${f}`, { throwIfNoEntry: false });
      readFileSync(kept[i % kept.length]!, 'utf8');
    });
  } else {
    const truth = simTruthFor({ actual_provider: 'sim', workloads_dir: WORKLOADS, temperature: 0 } as Provenance, registry);
    if (!('pSolved' in truth)) throw new Error('a sim run has a true oracle');
    for (const n of asked) for (const m of MODELS) truth.pSolved(n, m);
  }
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  process.stdout.write(`${JSON.stringify({ ms, cpu: (c.user + c.system) / 1000 })}\n`);
}

const median = (xs: number[]) => +[...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(2);

function parent(): void {
  const rounds = Number(flag('--rounds') ?? 15);
  const cache = mkdtempSync(join(tmpdir(), 'metis-oracle-truth-'));
  // Without NODE_EXTRA_CA_CERTS, which would make each child parse a CA bundle (outside the window, but CPU).
  const env: NodeJS.ProcessEnv = { ...process.env, METIS_BENCH_CACHE_DIR: cache };
  delete env.NODE_EXTRA_CA_CERTS;
  const spawn = (what: string) => {
    const out = spawnSync(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, '--child', what, cache], { encoding: 'utf8', env });
    if (out.status !== 0) throw new Error(`${what} exited ${out.status}: ${out.stderr.slice(0, 500)}`);
    return JSON.parse(out.stdout) as { ms: number; cpu: number };
  };
  try {
    spawn('truth'); // fills the cache, as the first analyze after a build does
    const load = [loadavg().map((l) => +l.toFixed(2))];
    const all: Record<string, { ms: number; cpu: number }[]> = { truth: [], floor: [] };
    for (let r = 0; r < rounds; r++) for (const what of ['truth', 'floor']) all[what]!.push(spawn(what));
    load.push(loadavg().map((l) => +l.toFixed(2)));
    const cold = Object.fromEntries(Object.entries(all).map(([what, xs]) => [what, { ms: median(xs.map((x) => x.ms)), cpu_ms: median(xs.map((x) => x.cpu)) }]));
    const result = {
      what: "the true oracle's truth over the shipped workloads in a fresh process (simTruthFor, P(solved) for two models each), the parsed-file cache warm, against the file calls its freshness checks need",
      workloads: names().length,
      rounds,
      load_average: load,
      cold_medians: cold,
      over_floor: { ms: +(cold.truth!.ms / cold.floor!.ms).toFixed(2), cpu: +(cold.truth!.cpu_ms / cold.floor!.cpu_ms).toFixed(2) },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

const i = process.argv.indexOf('--child');
if (i >= 0) child(process.argv[i + 1]!, process.argv[i + 2]!);
else parent();
