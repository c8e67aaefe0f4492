// The events pass of a sealed run's analyze, cold: the digest under each version beside its floor (the run's
// payloads alone, hashed the same way) and version 1 as it was computed before (one blob of the whole run), and
// the typed read that follows it, by rowid against walking the run again. Each measurement is a fresh process
// (a cold analyze is one), the modes alternating round by round.
//
//   npx tsx scripts/perf/events-digest.ts [--db TRACE.db] [--rounds 9]
//
// --db: a trace DB whose latest run is measured (the 100-night DB `nightly-growth.ts --keep` leaves); without it,
// one fix-a-bug-small run copied 20 times (a much smaller run, so smaller figures).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../harness/cli/main.ts';
import { openSqliteReadOnly } from '../../harness/report/report-from-db.ts';
import { runEventsPass } from '../../harness/runs/events-digest.ts';
import { RUN_EVENTS, RUN_SESSIONS_CTE, readEventRows, readRunEvents } from '../../harness/runs/run-events.ts';
import { copyRuns } from '../../harness/runs/test-support/run-copies.ts';
import { PAYLOAD_TYPES } from '../../runtime/analytics/event-rows.ts';

const MODES = ['digest-v1-one-blob', 'digest-v1', 'digest-v2', 'floor', 'typed-walk', 'typed-rowid'] as const;

/** Version 1 as bench computed it before this script: the whole run's string in one blob, then one hash (no rowids). */
const V1_ONE_BLOB = `${RUN_SESSIONS_CTE} SELECT CAST(group_concat(concat(${['session_id', 'id', 'type', 'payload_json'].map((c) => `typeof(${c}), ':', octet_length(${c}), ':', ${c}`).join(', ')}), '') AS BLOB)
FROM (SELECT session_id, id, type, payload_json ${RUN_EVENTS} ORDER BY session_id, id)`;
type Mode = (typeof MODES)[number];

function flag(name: string): string | null {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? null) : null;
}

/** One cold measurement in this process: milliseconds, CPU milliseconds and page faults of `mode` on the DB's latest run. */
function child(mode: Mode, path: string): void {
  const db = openSqliteReadOnly(path);
  const run = db.prepare('SELECT run_id FROM bench_runs ORDER BY created_at_us DESC LIMIT 1').pluck().get() as string;
  // The typed reads follow the pass they come after in analyze, outside the measured window.
  const pass = mode.startsWith('typed') ? runEventsPass(db, run, 2, PAYLOAD_TYPES) : null;
  const f0 = process.resourceUsage().minorPageFault;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
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
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  process.stdout.write(`${JSON.stringify({ ms, cpu: (c.user + c.system) / 1000, faults: process.resourceUsage().minorPageFault - f0 })}\n`);
}

const median = (xs: number[]) => +[...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(2);

async function parent(): Promise<void> {
  const rounds = Number(flag('--rounds') ?? 9);
  let path = flag('--db');
  const root = path ? null : mkdtempSync(join(tmpdir(), 'metis-events-digest-'));
  try {
    if (root) {
      const night = join(root, 'night.db');
      const io = { out: () => {}, err: (s: string) => process.stderr.write(`${s}\n`), isTTY: false, progress: () => {}, env: { PATH: process.env.PATH }, cwd: process.cwd() };
      if ((await main(['run', '--workload', 'fix-a-bug-small', '--db-path', night, '--quiet'], io)) === 2) throw new Error('the run failed with a setup error');
      path = join(root, 'history.db');
      copyRuns(night, path, 20);
    }
    const load = [loadavg().map((l) => +l.toFixed(2))];
    const all: Record<string, { ms: number; cpu: number; faults: number }[]> = {};
    for (let r = 0; r < rounds; r++) {
      for (const mode of MODES) {
        const out = spawnSync(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, '--child', mode, path!], { encoding: 'utf8' });
        if (out.status !== 0) throw new Error(`${mode} exited ${out.status}: ${out.stderr.slice(0, 500)}`);
        (all[mode] ??= []).push(JSON.parse(out.stdout) as { ms: number; cpu: number; faults: number });
      }
    }
    load.push(loadavg().map((l) => +l.toFixed(2)));
    const cold = Object.fromEntries(Object.entries(all).map(([mode, xs]) => [mode, { ms: median(xs.map((x) => x.ms)), cpu_ms: median(xs.map((x) => x.cpu)), page_faults: median(xs.map((x) => x.faults)) }]));
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
