// What analyze reads of a trace DB, cold, under each way of reading its pages: the open, the run's values checked
// and its events read (assertRunValues), its reps and provenance, the close; beside the floor, the raw SQL
// aggregation of the same run (the query `nightly-growth.ts` times) from open to close. Each measurement is a
// fresh process (a cold analyze is one), the setups alternating round by round. `chosen` is what
// openSqliteReadOnly applies to this file (traceReadPragmas).
//
//   npx tsx scripts/perf/trace-read-setup.ts [--db TRACE.db] [--rounds 9]
//
// --db: a trace DB whose latest run is measured (the 100-night DB `nightly-growth.ts --keep` leaves: past the
// integrity scan's size, where the setups differ most); without it, one fix-a-bug-small run copied 20 times.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { main } from '../../harness/cli/main.ts';
import { assertRunValues } from '../../harness/runs/run-events-seal.ts';
import { RunStore } from '../../harness/runs/run-store.ts';
import { copyRuns } from '../../harness/runs/test-support/run-copies.ts';
import { TRACE_DB_CACHE_PAGES, TRACE_DB_MMAP_BYTES, traceReadPragmas } from '../../runtime/trace/read-pragmas.ts';

/** Each setup's pragmas, run after the open as openSqliteReadOnly runs them (`chosen` is filled in per file). */
const SETUPS: Record<string, string[]> = {
  'default-cache': [],
  mmap: [`mmap_size = ${TRACE_DB_MMAP_BYTES}`],
  'small-cache': [`cache_size = ${TRACE_DB_CACHE_PAGES}`],
  'mmap-small-cache': [`mmap_size = ${TRACE_DB_MMAP_BYTES}`, `cache_size = ${TRACE_DB_CACHE_PAGES}`],
  floor: [],
};

/** The aggregation a hand-written report of the run would run: tokens and cost per workload and pass. */
const RAW_SQL = `
SELECT r.workload, r.pass, count(e.id) AS calls,
       sum(e.payload_json ->> '$.input_tokens') AS input_tokens, sum(e.payload_json ->> '$.output_tokens') AS output_tokens,
       sum(CAST(e.payload_json ->> '$.cost_usd' AS REAL)) AS cost_usd
FROM workload_runs r JOIN json_each(r.session_ids_json) s JOIN events e ON e.session_id = s.value
WHERE r.run_id = ? AND +e.type = 'llm.call_completed'
GROUP BY r.workload, r.pass`;

function flag(name: string): string | null {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? null) : null;
}

/** One cold measurement in this process: milliseconds, CPU milliseconds and page faults from open to close. */
function child(setup: string, path: string, run: string): void {
  // Loaded before the window: the addon's load is the same for every setup.
  new Database(':memory:').close();
  const f0 = process.resourceUsage().minorPageFault;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const db = new Database(path, { readonly: true, fileMustExist: true });
  for (const pragma of setup === 'chosen' ? traceReadPragmas(statSync(path).size) : SETUPS[setup]!) db.pragma(pragma);
  if (setup === 'floor') db.prepare(RAW_SQL).all(run);
  else {
    assertRunValues(db, path, run);
    const runs = new RunStore(db, { create: false });
    runs.workloadRuns(run);
    runs.provenance(run);
  }
  db.close();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  process.stdout.write(`${JSON.stringify({ ms, cpu: (c.user + c.system) / 1000, faults: process.resourceUsage().minorPageFault - f0 })}\n`);
}

const median = (xs: number[]) => +[...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(2);

async function parent(): Promise<void> {
  const rounds = Number(flag('--rounds') ?? 9);
  let path = flag('--db');
  const root = path ? null : mkdtempSync(join(tmpdir(), 'metis-trace-read-'));
  try {
    if (root) {
      const night = join(root, 'night.db');
      const io = { out: () => {}, err: (s: string) => process.stderr.write(`${s}\n`), isTTY: false, progress: () => {}, env: { PATH: process.env.PATH }, cwd: process.cwd() };
      if ((await main(['run', '--workload', 'fix-a-bug-small', '--db-path', night, '--quiet'], io)) === 2) throw new Error('the run failed with a setup error');
      path = join(root, 'history.db');
      copyRuns(night, path, 20);
    }
    const probe = new Database(path!, { readonly: true });
    const run = probe.prepare('SELECT run_id FROM bench_runs ORDER BY created_at_us DESC LIMIT 1').pluck().get() as string;
    probe.close();
    const setups = ['chosen', ...Object.keys(SETUPS)];
    const load = [loadavg().map((l) => +l.toFixed(2))];
    const all: Record<string, { ms: number; cpu: number; faults: number }[]> = {};
    for (let r = 0; r < rounds; r++) {
      for (const setup of setups) {
        // Without NODE_EXTRA_CA_CERTS, which would make each child parse a CA bundle (outside the window, but CPU).
        const env = { ...process.env };
        delete env.NODE_EXTRA_CA_CERTS;
        const out = spawnSync(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, '--child', setup, path!, run], { encoding: 'utf8', env });
        if (out.status !== 0) throw new Error(`${setup} exited ${out.status}: ${out.stderr.slice(0, 500)}`);
        (all[setup] ??= []).push(JSON.parse(out.stdout) as { ms: number; cpu: number; faults: number });
      }
    }
    load.push(loadavg().map((l) => +l.toFixed(2)));
    const cold = Object.fromEntries(Object.entries(all).map(([setup, xs]) => [setup, { ms: median(xs.map((x) => x.ms)), cpu_ms: median(xs.map((x) => x.cpu)), page_faults: median(xs.map((x) => x.faults)) }]));
    const overFloor = Object.fromEntries(setups.filter((s) => s !== 'floor').map((s) => [s, { ms: +(cold[s]!.ms / cold.floor!.ms).toFixed(2), cpu: +(cold[s]!.cpu_ms / cold.floor!.cpu_ms).toFixed(2) }]));
    const result = {
      what: "analyze's reads of a trace DB's latest run in a fresh process (open, assertRunValues, reps, provenance, close) under each page-reading setup, against the raw SQL aggregation of the run",
      db: root ? 'one fix-a-bug-small run copied 20 times' : path,
      db_bytes: statSync(path!).size,
      chosen: traceReadPragmas(statSync(path!).size),
      rounds,
      load_average: load,
      cold_medians: cold,
      over_floor: overFloor,
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    if (root) rmSync(root, { recursive: true, force: true });
  }
}

const i = process.argv.indexOf('--child');
if (i >= 0) child(process.argv[i + 1]!, process.argv[i + 2]!, process.argv[i + 3]!);
else await parent();
