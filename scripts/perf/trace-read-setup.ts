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
import { rmSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import Database from 'better-sqlite3';
import { assertRunValues } from '../../harness/runs/run-events-seal.ts';
import { RunStore } from '../../harness/runs/run-store.ts';
import { TRACE_DB_CACHE_PAGES, TRACE_DB_MMAP_BYTES, traceReadPragmas } from '../../runtime/trace/read-pragmas.ts';
import { coldMedians, flag, printWindow, RAW_SQL, traceDbToTime } from './cold-runs.ts';

/** Each setup's pragmas, run after the open as openSqliteReadOnly runs them (`chosen` is filled in per file). */
const SETUPS: Record<string, string[]> = {
  'default-cache': [],
  mmap: [`mmap_size = ${TRACE_DB_MMAP_BYTES}`],
  'small-cache': [`cache_size = ${TRACE_DB_CACHE_PAGES}`],
  'mmap-small-cache': [`mmap_size = ${TRACE_DB_MMAP_BYTES}`, `cache_size = ${TRACE_DB_CACHE_PAGES}`],
  floor: [],
};

/** One cold measurement in this process: milliseconds, CPU milliseconds and page faults from open to close. */
function child(setup: string, path: string, run: string): void {
  // Loaded before the window: the addon's load is the same for every setup.
  new Database(':memory:').close();
  printWindow(() => {
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
  });
}

async function parent(): Promise<void> {
  const rounds = Number(flag('--rounds') ?? 9);
  const { path, root } = await traceDbToTime(flag('--db'), 'metis-trace-read-');
  try {
    const probe = new Database(path, { readonly: true });
    const run = probe.prepare('SELECT run_id FROM bench_runs ORDER BY created_at_us DESC LIMIT 1').pluck().get() as string;
    probe.close();
    const setups = ['chosen', ...Object.keys(SETUPS)];
    const load = [loadavg().map((l) => +l.toFixed(2))];
    const cold = coldMedians(new URL(import.meta.url).pathname, setups, [path, run], rounds);
    load.push(loadavg().map((l) => +l.toFixed(2)));
    const overFloor = Object.fromEntries(setups.filter((s) => s !== 'floor').map((s) => [s, { ms: +(cold[s]!.ms / cold.floor!.ms).toFixed(2), cpu: +(cold[s]!.cpu_ms / cold.floor!.cpu_ms).toFixed(2) }]));
    const result = {
      what: "analyze's reads of a trace DB's latest run in a fresh process (open, assertRunValues, reps, provenance, close) under each page-reading setup, against the raw SQL aggregation of the run",
      db: root ? 'one fix-a-bug-small run copied 20 times' : path,
      db_bytes: statSync(path).size,
      chosen: traceReadPragmas(statSync(path).size),
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
