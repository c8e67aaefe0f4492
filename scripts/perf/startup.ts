// What a user waits for before a command does anything: `bench --help`, `bench list` and `analyze --help`
// as processes, each beside `node -e 0` (the floor: Node itself) from the same run, interleaved so a
// change in machine load hits all of them alike. Prints JSON. Every process runs without the variables that
// cost any Node process a fixed price at start (measured-env.ts; `env_removed` names them, and one row shows
// `node -e 0` with them, as figures before this were timed).
//
//   npx tsx scripts/perf/startup.ts [--reps 5]
//
// The bins run dist/ when it is fresh (`npm run build`); the `sources` rows force the TypeScript sources
// through tsx (METIS_BENCH_NO_DIST=1), which is what every start cost before dist/ existed.
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { distIsFresh } from '../../bin/launch.cjs';
import { measuredEnv } from './measured-env.ts';

const REPO = new URL('../../', import.meta.url).pathname;
/** bench --help at most this many times node -e 0; bench list at most this many ms (idle 2-core machine). */
const GOALS = { help_ratio: 3, list_ms: 1000 };

interface Probe {
  name: string;
  args: string[];
  env?: Record<string, string>;
  /** Run with the environment as inherited, START_COST_VARIABLES included (a row shown beside the floor, never the floor). */
  inherited?: boolean;
}

const bench = join(REPO, 'bin', 'bench.mjs');
const analyze = join(REPO, 'bin', 'analyze.cjs');
const sources = { METIS_BENCH_NO_DIST: '1' };
const measured = measuredEnv();
const PROBES: Probe[] = [
  { name: 'node -e 0', args: ['-e', '0'] },
  { name: 'bench --help', args: [bench, '--help'] },
  { name: 'bench list', args: [bench, 'list'] },
  { name: 'analyze --help', args: [analyze, '--help'] },
  { name: 'bench --help (sources)', args: [bench, '--help'], env: sources },
  { name: 'bench list (sources)', args: [bench, 'list'], env: sources },
  { name: 'analyze --help (sources)', args: [analyze, '--help'], env: sources },
  // What the removed variables cost a process here, so earlier figures (timed with them) can be read beside these.
  ...(measured.removed.length > 0 ? [{ name: 'node -e 0 (inherited environment)', args: ['-e', '0'], inherited: true }] : []),
];

function timeOnce(p: Probe): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, p.args, { cwd: REPO, env: { ...(p.inherited ? process.env : measured.env), ...p.env }, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${p.name} exited ${r.status}: ${r.stderr.toString().slice(0, 500)}`);
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const i = process.argv.indexOf('--reps');
const reps = i >= 0 ? Number(process.argv[i + 1]) : 5;
const load = loadavg()[0]!;
const times = new Map<string, number[]>(PROBES.map((p) => [p.name, []]));
// One warm-up round (the OS file cache, tsx's compile cache), then `reps` interleaved rounds.
for (const p of PROBES) timeOnce(p);
for (let r = 0; r < reps; r++) for (const p of PROBES) times.get(p.name)!.push(timeOnce(p));

const floor = median(times.get('node -e 0')!);
const rows = Object.fromEntries(
  PROBES.map((p) => {
    const ms = median(times.get(p.name)!);
    return [p.name, { median_ms: Math.round(ms), ratio_to_node: +(ms / floor).toFixed(2), all_ms: times.get(p.name)!.map(Math.round) }];
  }),
);
const help = rows['bench --help']!;
const list = rows['bench list']!;
console.log(
  JSON.stringify({
    what: 'start-up of bench commands as processes, each against node -e 0 from the same run',
    env_removed: measured.removed,
    env_note: 'every process runs without the variables in env_removed, which cost any Node process a fixed price at start unrelated to the code timed (scripts/perf/measured-env.ts)',
    dist_fresh: distIsFresh(new URL('dist/', `file://${REPO}`), new URL(`file://${REPO}`)),
    load_average_1m_at_start: +load.toFixed(2),
    load_average_1m_at_end: +loadavg()[0]!.toFixed(2),
    reps,
    results: rows,
    goals: { ...GOALS, help_ratio_met: help.ratio_to_node <= GOALS.help_ratio, list_ms_met: list.median_ms <= GOALS.list_ms, note: 'goals are for an idle 2-core machine; read them beside the load average' },
  }),
);
