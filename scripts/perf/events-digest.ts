// The events pass of a sealed run's analyze, cold: the digest under each version beside its floor (the run's
// payloads alone, hashed the same way) and version 1 as it was computed before (one blob of the whole run); the
// pass with the rows analytics sums (read on its way, as analyze reads them) against the digest alone, and against
// walking the run for those rows (as a run without a seal is read). Each measurement is a fresh process (a cold
// analyze is one), the modes alternating round by round.
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
import { RUN_EVENTS, RUN_SESSIONS_CTE, readRunEvents } from '../../harness/runs/run-events.ts';
import { COUNTED_TYPES, PAYLOAD_TYPES } from '../../runtime/analytics/event-rows.ts';
import { coldMedians, flag, printWindow, traceDbToTime } from './cold-runs.ts';

const MODES = ['digest-v1-one-blob', 'digest-v1', 'digest-v2', 'digest-v2-with-rows', 'floor', 'typed-walk'] as const;

/** Version 1 as bench computed it before this script: the whole run's string in one blob, then one hash (no rows of any type handed on). */
const V1_ONE_BLOB = `${RUN_SESSIONS_CTE} SELECT CAST(group_concat(concat(${['session_id', 'id', 'type', 'payload_json'].map((c) => `typeof(${c}), ':', octet_length(${c}), ':', ${c}`).join(', ')}), '') AS BLOB)
FROM (SELECT session_id, id, type, payload_json ${RUN_EVENTS} ORDER BY session_id, id)`;
type Mode = (typeof MODES)[number];

/** One cold measurement in this process: milliseconds, CPU milliseconds and page faults of `mode` on the DB's latest run. */
function child(mode: Mode, path: string): void {
  const db = openSqliteReadOnly(path);
  const run = db.prepare('SELECT run_id FROM bench_runs ORDER BY created_at_us DESC LIMIT 1').pluck().get() as string;
  printWindow(() => {
    if (mode === 'digest-v1-one-blob') {
      const blob = db.prepare(V1_ONE_BLOB).pluck().get(run) as Buffer | null;
      createHash('sha256')
        .update(blob ?? Buffer.alloc(0))
        .digest('hex');
    } else if (mode === 'digest-v1' || mode === 'digest-v2') runEventsPass(db, run, mode === 'digest-v1' ? 1 : 2);
    else if (mode === 'digest-v2-with-rows') runEventsPass(db, run, 2, PAYLOAD_TYPES, COUNTED_TYPES);
    else if (mode === 'floor') {
      const hash = createHash('sha256');
      for (const chunk of db.prepare(`${RUN_SESSIONS_CTE} SELECT CAST(group_concat(payload_json, '') AS BLOB) ${RUN_EVENTS} GROUP BY session_id`).pluck().iterate(run) as IterableIterator<Buffer>) hash.update(chunk);
      hash.digest('hex');
    } else readRunEvents(db, run, PAYLOAD_TYPES);
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
      what: "a sealed run's events pass in a fresh process: the digest per version against the payloads alone, and the pass with the rows analytics sums and the counts (as analyze runs it) against the digest alone and against walking the run for those rows",
      db: root ? 'one fix-a-bug-small run copied 20 times' : path,
      rounds,
      load_average: load,
      cold_medians: cold,
      digest_v1_over_one_blob: ratio('digest-v1', 'digest-v1-one-blob'),
      digest_v2_over_v1: ratio('digest-v2', 'digest-v1'),
      digest_v2_over_floor: ratio('digest-v2', 'floor'),
      with_rows_over_digest_alone: ratio('digest-v2-with-rows', 'digest-v2'),
      with_rows_over_digest_and_walk: {
        ms: +(cold['digest-v2-with-rows']!.ms / (cold['digest-v2']!.ms + cold['typed-walk']!.ms)).toFixed(2),
        cpu: +(cold['digest-v2-with-rows']!.cpu_ms / (cold['digest-v2']!.cpu_ms + cold['typed-walk']!.cpu_ms)).toFixed(2),
      },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    if (root) rmSync(root, { recursive: true, force: true });
  }
}

const i = process.argv.indexOf('--child');
if (i >= 0) child(process.argv[i + 1] as Mode, process.argv[i + 2]!);
else await parent();
