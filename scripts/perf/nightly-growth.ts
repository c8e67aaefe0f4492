// How the trace DB and the pattern store grow per nightly run, and whether `analyze --skip-execute` and
// `bench report` stay under 2 s on a DB holding 100 nightly runs. Prints JSON, with analyze beside its
// floor: the same run's per-workload aggregation in one raw SQL query, in process and as a process.
//
//   npx tsx scripts/perf/nightly-growth.ts [--source NIGHT.db] [--runs 100] [--keep DIR] [--history DB]
//
// --history: time an existing history DB (one a --keep run left) instead of building one from the night.
// `pass`: every median under 2 s and the CLI analyze within 2x the raw SQL process; `pass_in_process_ratio`:
// the same ratio in process (a floor of one query against a report, its checks and its rendering).
//
// Without --source it first makes one night the way the nightly does (A3, 3 seed passes, every workload,
// simulated provider; a few minutes). The history DB is that night's rows copied --runs times, every id
// suffixed per copy, so each copy is a distinct run with its own sessions and events, each sealed as a finished
// run is (`latest_run_events_sealed`: a --history DB written by an older bench has no events seal, and analyze
// then checks every payload of the run).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { main } from '../../harness/cli/main.ts';
import type { CliIO } from '../../harness/io/cli-io.ts';
import { copyRuns } from '../../harness/runs/test-support/run-copies.ts';
import { readEventsSeal } from '../../harness/runs/run-events-seal.ts';
import { distIsFresh } from '../../bin/launch.cjs';
import { RAW_SQL } from './cold-runs.ts';
import { measuredEnv } from './measured-env.ts';

const TARGET_MS = 2000;
/** analyze may cost at most this many times the raw SQL aggregation of the same run. */
const TARGET_RATIO = 2;
const REPO = new URL('../../', import.meta.url).pathname;

/**
 * The raw SQL aggregation as its own Node process (open, query, print), the peer of a CLI analyze: the ES module
 * this script has always timed, and the same in CommonJS, which skips Node's ES module loader as bin/analyze.cjs
 * does (a few ms cheaper). The goal is judged against the ES module floor, as in every earlier figure; the
 * CommonJS ratio is printed beside it, the stricter of the two.
 */
const RAW_SQL_PROCESS = `import Database from 'better-sqlite3';
const db = new Database(process.argv[1], { readonly: true });
console.log(JSON.stringify(db.prepare(process.argv[3]).all(process.argv[2])).length);
db.close();`;
const RAW_SQL_PROCESS_CJS = RAW_SQL_PROCESS.replace("import Database from 'better-sqlite3';", "const Database = require('better-sqlite3');");

function flag(name: string): string | null {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? null) : null;
}

const quietIO = (cwd: string): CliIO => ({ out: () => {}, err: (s) => process.stderr.write(`${s}\n`), isTTY: false, progress: () => {}, env: { PATH: process.env.PATH }, cwd });

/** CPU milliseconds (user + system) this process spent since `since`: steadier than wall time under load. */
const cpuMs = (since: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(since);
  return (c.user + c.system) / 1000;
};

async function timed(argv: string[], cwd: string): Promise<{ ms: number; cpu: number; code: number }> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const code = await main(argv, quietIO(cwd));
  return { ms: performance.now() - t0, cpu: cpuMs(c0), code };
}

/**
 * Preloaded into each measured process: its own CPU time (user + system) at exit, on stderr. Node has no
 * rusage of a child, and on a loaded machine the CPU ratio is steadier than the wall ratio. A CommonJS file
 * (`--require`), not an `--import` of a data: URL: that would set up the ES module loader in a process that
 * otherwise never does (bin/analyze.cjs), adding its cost to the side measured.
 */
const CPU_AT_EXIT_CJS = "process.on('exit', () => { const c = process.cpuUsage(); process.stderr.write('\\ncpu_ms=' + (c.user + c.system) / 1000 + '\\n'); });\n";

/** The processes' environment: without the variables that cost every Node process a fixed price at start. */
const measured = measuredEnv();

/**
 * Runs `node ARGS` from `cwd` (in the measured environment, or as inherited) and returns its CPU milliseconds;
 * exit 0 or 1 (a report with failed assertions) is a finished analysis.
 */
function processOk([what, args]: [string, string[]], cwd: string, preload: string, env: NodeJS.ProcessEnv = measured.env): number {
  const r = spawnSync(process.execPath, ['--require', preload, ...args], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
  const stderr = r.stderr.toString();
  if (r.status !== 0 && r.status !== 1) throw new Error(`${what} exited ${r.status}: ${stderr.slice(0, 500)}`);
  const cpu = /\ncpu_ms=([\d.]+)\n/.exec(stderr);
  if (!cpu) throw new Error(`${what} printed no cpu_ms line: ${stderr.slice(0, 500)}`);
  return Number(cpu[1]);
}

/** Wall milliseconds of `f` and the CPU milliseconds it returns. */
function wallAndCpu(f: () => number): { ms: number; cpu: number } {
  const t0 = performance.now();
  const cpu = f();
  return { ms: performance.now() - t0, cpu };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const size = (p: string) => (existsSync(p) ? statSync(p).size + (existsSync(`${p}-wal`) ? statSync(`${p}-wal`).size : 0) : 0);

const keep = flag('--keep');
const root = keep ?? mkdtempSync(join(tmpdir(), 'metis-growth-'));
try {
  const runs = Number(flag('--runs') ?? 100);
  let source = flag('--source');
  if (!source) {
    source = join(root, 'night.db');
    const r = await timed(['run', '--protocol', 'a3', '--seed-passes', '3', '--include-marginal', '--db-path', source, '--quiet'], process.cwd());
    if (r.code === 2) throw new Error('the nightly run failed with a setup error');
  }
  const night = new Database(source, { readonly: true });
  const count = (t: string) => (night.prepare(`SELECT count(*) AS n FROM "${t}"`).get() as { n: number }).n;
  const perNight = { events: count('events'), sessions: count('sessions'), workload_runs: count('workload_runs') };
  night.close();
  const patterns = source.replace(/\.db$/, '') + '.patterns.db';
  const pdb = existsSync(patterns) ? new Database(patterns, { readonly: true }) : null;
  const patternRows = pdb ? { fingerprints: (pdb.prepare('SELECT count(*) AS n FROM fingerprints').get() as { n: number }).n, outcomes: (pdb.prepare('SELECT count(*) AS n FROM outcomes').get() as { n: number }).n } : null;
  pdb?.close();

  const given = flag('--history');
  const history = given ?? join(root, 'history.db');
  if (!given) copyRuns(source, history, runs);
  const loadBefore = loadavg().map((l) => +l.toFixed(2));
  const historyDb = new Database(history, { readonly: true });
  const latest = (historyDb.prepare('SELECT run_id FROM bench_runs ORDER BY created_at_us DESC LIMIT 1').get() as { run_id: string }).run_id;
  // A run sealed by an older bench has no events seal, so analyze checks every payload of it (the slower path).
  const latestSealed = readEventsSeal(historyDb, latest) !== null;
  historyDb.close();
  const analyze: number[] = [];
  const report: number[] = [];
  const rawSql: number[] = [];
  const analyzeCli: number[] = [];
  const analyzeCpu: number[] = [];
  const rawSqlCpu: number[] = [];
  const rawSqlProcess: number[] = [];
  const analyzeCliCpu: number[] = [];
  const rawSqlProcessCpu: number[] = [];
  const rawSqlProcessCjs: number[] = [];
  const rawSqlProcessCjsCpu: number[] = [];
  const inheritedCli: number[] = [];
  const inheritedRaw: number[] = [];
  const cpuAtExit = join(root, 'cpu-at-exit.cjs');
  writeFileSync(cpuAtExit, CPU_AT_EXIT_CJS);
  const wall = (f: () => void) => {
    const t0 = performance.now();
    f();
    return performance.now() - t0;
  };
  // Five rounds, each side alternating, so a burst of load falls on both.
  for (let i = 0; i < 5; i++) {
    const a = await timed(['analyze', '--skip-execute', '--db-path', history, '--json', join(root, 'history.json'), '--force'], root);
    analyze.push(a.ms);
    analyzeCpu.push(a.cpu);
    // bench report DB renders the report JSON beside the DB (the one analyze just wrote).
    report.push((await timed(['report', history, '--format', 'md', '--out', join(root, 'latest.md')], root)).ms);
    const c0 = process.cpuUsage();
    rawSql.push(
      wall(() => {
        const db = new Database(history, { readonly: true });
        db.prepare(RAW_SQL).all(latest);
        db.close();
      }),
    );
    rawSqlCpu.push(cpuMs(c0));
    // The same two as processes: what a user waits for, start-up included on both sides.
    const cli = wallAndCpu(() => processOk(['analyze', [join(REPO, 'bin', 'analyze.cjs'), '--skip-execute', '--db-path', history, '--json', join(root, 'cli.json'), '--force']], root, cpuAtExit));
    analyzeCli.push(cli.ms);
    analyzeCliCpu.push(cli.cpu);
    const raw = wallAndCpu(() => processOk(['raw SQL', ['--input-type=module', '-e', RAW_SQL_PROCESS, history, latest, RAW_SQL]], REPO, cpuAtExit));
    rawSqlProcess.push(raw.ms);
    rawSqlProcessCpu.push(raw.cpu);
    const rawCjs = wallAndCpu(() => processOk(['raw SQL (CommonJS)', ['-e', RAW_SQL_PROCESS_CJS, history, latest, RAW_SQL]], REPO, cpuAtExit));
    rawSqlProcessCjs.push(rawCjs.ms);
    rawSqlProcessCjsCpu.push(rawCjs.cpu);
    if (measured.removed.length > 0) {
      // The same pair with the variables removed above: how the figures measured before this script removed them read.
      inheritedCli.push(wallAndCpu(() => processOk(['analyze', [join(REPO, 'bin', 'analyze.cjs'), '--skip-execute', '--db-path', history, '--json', join(root, 'cli.json'), '--force']], root, cpuAtExit, process.env)).ms);
      inheritedRaw.push(wallAndCpu(() => processOk(['raw SQL', ['--input-type=module', '-e', RAW_SQL_PROCESS, history, latest, RAW_SQL]], REPO, cpuAtExit, process.env)).ms);
    }
  }
  const result = {
    what: 'nightly growth: one night (A3, 3 seed passes, every workload, sim) copied into one trace DB',
    runs_in_history_db: runs,
    latest_run: latest,
    latest_run_events_sealed: latestSealed,
    per_night: { trace_db_bytes: size(source), ...perNight, pattern_store_bytes: size(patterns), pattern_rows: patternRows },
    history_db_bytes: size(history),
    bytes_per_night_in_history: Math.round(size(history) / runs),
    analyze_skip_execute_ms: { median: Math.round(median(analyze)), all: analyze.map(Math.round) },
    bench_report_ms: { median: Math.round(median(report)), all: report.map(Math.round) },
    analyze_vs_raw_sql: {
      in_process: {
        analyze_ms: Math.round(median(analyze)),
        raw_sql_ms: Math.round(median(rawSql)),
        ratio: +(median(analyze) / median(rawSql)).toFixed(2),
        all: { analyze_ms: analyze.map(Math.round), raw_sql_ms: rawSql.map(Math.round) },
        cpu: { analyze_ms: Math.round(median(analyzeCpu)), raw_sql_ms: Math.round(median(rawSqlCpu)), ratio: +(median(analyzeCpu) / median(rawSqlCpu)).toFixed(2) },
        how: 'main() from the TypeScript sources in this process (no parsed-file cache) against one better-sqlite3 query; the first analyze also loads its modules',
      },
      cli: {
        analyze_ms: Math.round(median(analyzeCli)),
        raw_sql_ms: Math.round(median(rawSqlProcess)),
        ratio: +(median(analyzeCli) / median(rawSqlProcess)).toFixed(2),
        all: { analyze_ms: analyzeCli.map(Math.round), raw_sql_ms: rawSqlProcess.map(Math.round) },
        cpu: {
          analyze_ms: Math.round(median(analyzeCliCpu)),
          raw_sql_ms: Math.round(median(rawSqlProcessCpu)),
          ratio: +(median(analyzeCliCpu) / median(rawSqlProcessCpu)).toFixed(2),
          all: { analyze_ms: analyzeCliCpu.map(Math.round), raw_sql_ms: rawSqlProcessCpu.map(Math.round) },
        },
        against_commonjs_floor: {
          raw_sql_ms: Math.round(median(rawSqlProcessCjs)),
          ratio: +(median(analyzeCli) / median(rawSqlProcessCjs)).toFixed(2),
          cpu: { raw_sql_ms: Math.round(median(rawSqlProcessCjsCpu)), ratio: +(median(analyzeCliCpu) / median(rawSqlProcessCjsCpu)).toFixed(2) },
          all: { raw_sql_ms: rawSqlProcessCjs.map(Math.round) },
        },
        env_removed: measured.removed,
        with_inherited_environment:
          inheritedCli.length > 0
            ? { analyze_ms: Math.round(median(inheritedCli)), raw_sql_ms: Math.round(median(inheritedRaw)), ratio: +(median(inheritedCli) / median(inheritedRaw)).toFixed(2), note: 'not the goal: the variables in env_removed add the same fixed start-up cost to both sides' }
            : null,
        how: 'bin/analyze.cjs as a process (dist/ when `npm run build` made it from these sources, else the sources through tsx) against `node -e` opening the DB and running the query (an ES module; `against_commonjs_floor`: the same in CommonJS); start-up on both sides, both without the variables in env_removed (scripts/perf/measured-env.ts)',
        dist_fresh: distIsFresh(new URL('dist/', `file://${REPO}`), new URL(`file://${REPO}`)),
      },
      target_ratio: TARGET_RATIO,
    },
    load_average: { before: loadBefore, after: loadavg().map((l) => +l.toFixed(2)) },
    target_ms: TARGET_MS,
    pass: median(analyze) < TARGET_MS && median(report) < TARGET_MS && median(analyzeCli) < TARGET_MS && median(analyzeCli) / median(rawSqlProcess) <= TARGET_RATIO,
    pass_in_process_ratio: median(analyze) / median(rawSql) <= TARGET_RATIO,
    note: 'each night writes a fresh pattern store (the nightly does not carry one over), so the store does not grow across nights; the trace DB grows linearly, one night at a time',
  };
  console.log(JSON.stringify(result, null, 2));
} finally {
  if (!keep) rmSync(root, { recursive: true, force: true });
}
