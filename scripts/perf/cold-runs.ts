// What the scripts that time a trace DB's reads in fresh processes share (events-digest.ts, trace-read-setup.ts):
// the DB they measure, the children they spawn round by round, the medians of what the children print; and the
// raw SQL aggregation the process-level figures are held to (nightly-growth.ts and trace-read-setup.ts).
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../harness/cli/main.ts';
import { copyRuns } from '../../harness/runs/test-support/run-copies.ts';
import { measuredEnv } from './measured-env.ts';

/**
 * The floor analyze is held to: one run's per-workload, per-pass calls, tokens and spend, straight from its
 * reps' session lists and their llm.call_completed events. `+type` keeps SQLite on the (session_id, id)
 * index; with `type` in a LEFT JOIN it took minutes on 100 nights, scanning every call per session.
 */
export const RAW_SQL = `
SELECT r.workload, r.pass, count(e.id) AS calls,
       sum(e.payload_json ->> '$.input_tokens') AS input_tokens, sum(e.payload_json ->> '$.output_tokens') AS output_tokens,
       sum(CAST(e.payload_json ->> '$.cost_usd' AS REAL)) AS cost_usd
FROM workload_runs r JOIN json_each(r.session_ids_json) s JOIN events e ON e.session_id = s.value
WHERE r.run_id = ? AND +e.type = 'llm.call_completed'
GROUP BY r.workload, r.pass`;

/** The value after `name` on the command line, or null. */
export function flag(name: string): string | null {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? null) : null;
}

/** What a child prints of its measured window. */
export interface ColdFigure {
  ms: number;
  cpu: number;
  faults: number;
}

/** Runs `f` and prints, as a child's one line of JSON, its milliseconds, CPU milliseconds and page faults. */
export function printWindow(f: () => void): void {
  const f0 = process.resourceUsage().minorPageFault;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  f();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  process.stdout.write(`${JSON.stringify({ ms, cpu: (c.user + c.system) / 1000, faults: process.resourceUsage().minorPageFault - f0 } satisfies ColdFigure)}\n`);
}

const median = (xs: number[]) => +[...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(2);

/**
 * The trace DB to measure: `given`, or (in a fresh folder under `root`, which the caller removes) one
 * fix-a-bug-small run copied 20 times, each copy its own sealed run.
 */
export async function traceDbToTime(given: string | null, prefix: string): Promise<{ path: string; root: string | null }> {
  if (given) return { path: given, root: null };
  const root = mkdtempSync(join(tmpdir(), prefix));
  const night = join(root, 'night.db');
  const io = { out: () => {}, err: (s: string) => process.stderr.write(`${s}\n`), isTTY: false, progress: () => {}, env: { PATH: process.env.PATH }, cwd: process.cwd() };
  if ((await main(['run', '--workload', 'fix-a-bug-small', '--db-path', night, '--quiet'], io)) === 2) throw new Error('the run failed with a setup error');
  const path = join(root, 'history.db');
  copyRuns(night, path, 20);
  return { path, root };
}

/**
 * `rounds` rounds of one fresh process per mode (`script --child MODE ...args`, without the variables that cost
 * every Node start: measured-env.ts), modes alternating within a round; the medians of each mode's figures.
 */
export function coldMedians(script: string, modes: readonly string[], args: readonly string[], rounds: number): Record<string, { ms: number; cpu_ms: number; page_faults: number }> {
  const all: Record<string, ColdFigure[]> = {};
  const { env } = measuredEnv();
  for (let r = 0; r < rounds; r++)
    for (const mode of modes) {
      const out = spawnSync(process.execPath, ['--import', 'tsx', script, '--child', mode, ...args], { encoding: 'utf8', env });
      if (out.status !== 0) throw new Error(`${mode} exited ${out.status}: ${out.stderr.slice(0, 500)}`);
      (all[mode] ??= []).push(JSON.parse(out.stdout) as ColdFigure);
    }
  return Object.fromEntries(Object.entries(all).map(([mode, xs]) => [mode, { ms: median(xs.map((x) => x.ms)), cpu_ms: median(xs.map((x) => x.cpu)), page_faults: median(xs.map((x) => x.faults)) }]));
}
