// How the trace DB and the pattern store grow per nightly run, and whether `analyze --skip-execute` and
// `bench report` stay under 2 s on a DB holding 100 nightly runs (issue 14). Prints JSON.
//
//   npx tsx scripts/perf/nightly-growth.ts [--source NIGHT.db] [--runs 100] [--keep DIR]
//
// Without --source it first makes one night the way the nightly does (A3, 3 seed passes, every workload,
// simulated provider; a few minutes). The history DB is that night's rows copied --runs times, every id
// suffixed per copy, so each copy is a distinct run with its own sessions and events.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { main } from '../../harness/cli/main.ts';
import type { CliIO } from '../../harness/cli/command.ts';
import { copyRuns } from '../../harness/runs/test-support/run-copies.ts';

const TARGET_MS = 2000;

function flag(name: string): string | null {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? null) : null;
}

const quietIO = (cwd: string): CliIO => ({ out: () => {}, err: (s) => process.stderr.write(`${s}\n`), isTTY: false, progress: () => {}, env: { PATH: process.env.PATH }, cwd });

async function timed(argv: string[], cwd: string): Promise<{ ms: number; code: number }> {
  const t0 = performance.now();
  const code = await main(argv, quietIO(cwd));
  return { ms: performance.now() - t0, code };
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

  const history = join(root, 'history.db');
  copyRuns(source, history, runs);
  const latest = (new Database(history, { readonly: true }).prepare('SELECT run_id FROM bench_runs ORDER BY created_at_us DESC LIMIT 1').get() as { run_id: string }).run_id;
  const analyze: number[] = [];
  const report: number[] = [];
  for (let i = 0; i < 3; i++) {
    analyze.push((await timed(['analyze', '--skip-execute', '--db-path', history, '--json', join(root, 'history.json'), '--force'], root)).ms);
    // bench report DB renders the report JSON beside the DB (the one analyze just wrote).
    report.push((await timed(['report', history, '--format', 'md', '--out', join(root, 'latest.md')], root)).ms);
  }
  const result = {
    what: 'nightly growth: one night (A3, 3 seed passes, every workload, sim) copied into one trace DB',
    runs_in_history_db: runs,
    latest_run: latest,
    per_night: { trace_db_bytes: size(source), ...perNight, pattern_store_bytes: size(patterns), pattern_rows: patternRows },
    history_db_bytes: size(history),
    bytes_per_night_in_history: Math.round(size(history) / runs),
    analyze_skip_execute_ms: { median: Math.round(median(analyze)), all: analyze.map(Math.round) },
    bench_report_ms: { median: Math.round(median(report)), all: report.map(Math.round) },
    target_ms: TARGET_MS,
    pass: median(analyze) < TARGET_MS && median(report) < TARGET_MS,
    note: 'each night writes a fresh pattern store (the nightly does not carry one over), so the store does not grow across nights; the trace DB grows linearly, one night at a time',
  };
  console.log(JSON.stringify(result, null, 2));
} finally {
  if (!keep) rmSync(root, { recursive: true, force: true });
}
