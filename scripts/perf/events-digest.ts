// The events pass of a sealed run's analyze, cold: the digest under each version beside its floor (the run's
// payloads alone, hashed the same way) and version 1 as it was computed before (one blob of the whole run), and
// the typed read that follows it, by rowid against walking the run again. Each measurement is a fresh process
// (a cold analyze is one), the modes alternating round by round.
//
//   npx tsx scripts/perf/events-digest.ts [--db TRACE.db] [--rounds 9]
//
// --db: a trace DB whose latest run is measured (the 100-night DB `nightly-growth.ts --keep` leaves); without it,
// one fix-a-bug-small run copied 20 times (a much smaller run, so smaller figures).
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { openSqliteReadOnly } from '../../harness/report/report-from-db.ts';
import { runEventsPass } from '../../harness/runs/events-digest.ts';
import { RUN_EVENTS, RUN_SESSIONS_CTE, readEventRows, readRunEvents } from '../../harness/runs/run-events.ts';
import { PAYLOAD_TYPES } from '../../runtime/analytics/event-rows.ts';
import { coldMedians, flag, printWindow, traceDbToTime } from './cold-runs.ts';

const MODES = ['digest-v1-one-blob', 'digest-v1', 'digest-v2', 'floor', 'typed-walk', 'typed-rowid'] as const;

/** Version 1 as bench computed it before this script: the whole run's string in one blob, then one hash (no rowids). */
const V1_ONE_BLOB = `${RUN_SESSIONS_CTE} SELECT CAST(group_concat(concat(${['session_id', 'id', 'type', 'payload_json'].map((c) => `typeof(${c}), ':', octet_length(${c}), ':', ${c}`).join(', ')}), '') AS BLOB)
FROM (SELECT session_id, id, type, payload_json ${RUN_EVENTS} ORDER BY session_id, id)`;
type Mode = (typeof MODES)[number];

/** One cold measurement in this process: milliseconds, CPU milliseconds and page faults of `mode` on the DB's latest run. */
function child(mode: Mode, path: string): void {
  const db = openSqliteReadOnly(path);
  const run = db.prepare('SELECT run_id FROM bench_runs ORDER BY created_at_us DESC LIMIT 1').pluck().get() as string;
  // The typed reads follow the pass they come after in analyze, outside the measured window.
  const pass = mode.startsWith('typed') ? runEventsPass(db, run, 2, PAYLOAD_TYPES) : null;
  printWindow(() => {
    if (mode === 'digest-v1-one-blob') {
      const blob = db.prepare(V1_ONE_BLOB).pluck().get(run) as Buffer | null;
      createHash('sha256')
        .update(blob ?? Buffer.alloc(0))
        .digest('hex');
    } else if (mode === 'digest-v1' || mode === 'digest-v2') runEventsPass(db, run, mode === 'digest-v1' ? 1 : 2, PAYLOAD_TYPES);
    else if (mode === 'floor') {
      const hash = createHash('sha256');
      for (const chunk of db.prepare(`${RUN_SESSIONS_CTE} SELECT CAST(group_concat(payload_json, '') AS BLOB) ${RUN_EVENTS} GROUP BY session_id`).pluck().iterate(run) as IterableIterator<Buffer>) hash.update(chunk);
      hash.digest('hex');
    } else if (mode === 'typed-walk') readRunEvents(db, run, PAYLOAD_TYPES);
    else readEventRows(db, pass!.rowids);
  });
}

async function parent(): Promise<void> {
  const rounds = Number(flag('--rounds') ?? 9);
  const { path, root } = await traceDbToTime(flag('--db'), 'metis-events-digest-');
  try {
    const load = [loadavg().map((l) => +l.toFixed(2))];
    const cold = coldMedians(new URL(import.meta.url).pathname, MODES, [path], rounds);
    load.push(loadavg().map((l) => +l.toFixed(2)));
    // CPU counts every thread of the process (a collection running beside the read too), so both are given.
    const ratio = (a: string, b: string) => ({ ms: +(cold[a]!.ms / cold[b]!.ms).toFixed(2), cpu: +(cold[a]!.cpu_ms / cold[b]!.cpu_ms).toFixed(2) });
    const result = {
      what: "a sealed run's events pass in a fresh process: the digest (with the typed rowids) per version against the payloads alone, and the typed read by rowid against walking the run",
      db: root ? 'one fix-a-bug-small run copied 20 times' : path,
      rounds,
      load_average: load,
      cold_medians: cold,
      digest_v1_over_one_blob: ratio('digest-v1', 'digest-v1-one-blob'),
      digest_v2_over_v1: ratio('digest-v2', 'digest-v1'),
      digest_v2_over_floor: ratio('digest-v2', 'floor'),
      typed_rowid_over_walk: ratio('typed-rowid', 'typed-walk'),
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    if (root) rmSync(root, { recursive: true, force: true });
  }
}

const i = process.argv.indexOf('--child');
if (i >= 0) child(process.argv[i + 1] as Mode, process.argv[i + 2]!);
else await parent();
