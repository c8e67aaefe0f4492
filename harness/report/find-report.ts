import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { formatAjvErrors, validatorFor } from '../../runtime/core/schemas.ts';
import type { BenchReport } from '../../schemas/types/report.ts';
import { SetupError } from '../errors.ts';

/** A report JSON found on disk and validated against `schemas/report.schema.json`. */
export interface FoundReport {
  path: string;
  report: BenchReport;
}

/** Where `bench report` looks: the working directory (for relative paths) and the runs folder (for ids and "latest"). */
export interface FindReportOptions {
  cwd: string;
  /** Folder of run outputs, relative to cwd or absolute; `reports/.runs` by default in the CLI. */
  runsDir: string;
  /** With no RUN: which kind of run is "the latest" (default benchmark; signal runs only when asked). */
  kind?: RunKind;
}

/** Reads and validates a report JSON; a missing, unparsable or invalid file is a SetupError naming it and the first problem. */
export function loadReport(path: string): FoundReport {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new SetupError(`${path}: ${code === 'ENOENT' ? 'no such report file' : `cannot read report (${(e as Error).message})`}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new SetupError(`${path}: not JSON (${(e as Error).message})`);
  }
  const validate = validatorFor<BenchReport>('report.schema.json');
  if (!validate(data)) {
    const first = formatAjvErrors(validate.errors)[0] ?? 'does not match';
    // Reports written before the gated verdict (issue 11) lack its fields; their DB still rebuilds them.
    const stale = /headline|outcome|solved|strong_call_rate|unforced_turns|pass_d/.test(JSON.stringify(validate.errors));
    const hint = stale ? '; it predates the solved-rate fields: rebuild it from its trace DB with `npx analyze --skip-execute --db-path <run>.db --json <path>`' : '';
    throw new SetupError(`${path}: not a valid bench report (schemas/report.schema.json): ${first}${hint}`);
  }
  return { path, report: data };
}

/** An ISO-8601 timestamp as integer microseconds, keeping the digits below a millisecond that Date.parse drops. */
function isoToUs(iso: string): number | null {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return null;
  const fraction = /\.(\d+)/.exec(iso)?.[1] ?? '';
  return ms * 1000 + Number(fraction.slice(3, 6).padEnd(3, '0'));
}

/** Which runs "the latest" picks from: benchmark runs (every protocol but signal), or `bench signal` runs. */
export type RunKind = 'benchmark' | 'signal';

/** The report-shaped JSON files of a folder with their `provenance` (other JSON, e.g. compare artifacts or matrix reports, is skipped). */
function reportsIn(dir: string): { path: string; runId: unknown; startedUs: number; kind: RunKind }[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  const found: { path: string; runId: unknown; startedUs: number; kind: RunKind }[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.json')) continue;
    const path = join(dir, name);
    let data: { kind?: unknown; report_version?: unknown; provenance?: { run_id?: unknown; started_at?: unknown; protocol?: unknown } };
    try {
      data = JSON.parse(readFileSync(path, 'utf8')) as typeof data;
    } catch {
      continue;
    }
    // Matrix and cache-stream reports carry a `kind` and have their own renderings: `bench report <path>` takes them by path.
    if (data?.kind !== undefined) continue;
    const started = data?.report_version !== undefined && typeof data.provenance?.started_at === 'string' ? isoToUs(data.provenance.started_at) : null;
    if (started !== null) found.push({ path, runId: data.provenance!.run_id, startedUs: started, kind: data.provenance!.protocol === 'signal' ? 'signal' : 'benchmark' });
  }
  return found;
}

/**
 * The newest report of `kind` in `runsDir` by the `provenance.started_at` it holds (not file mtime, which copies
 * and downloads reset). A `bench signal` run is never "the latest benchmark run": its two arms are not a benchmark.
 */
export function latestReportPath(runsDir: string, kind: RunKind = 'benchmark'): string {
  const everything = reportsIn(runsDir);
  const all = everything.filter((r) => r.kind === kind);
  if (all.length === 0) {
    const other = everything.length > 0 ? ` (it holds ${everything.length} ${kind === 'benchmark' ? 'signal' : 'benchmark'} run(s): add --kind ${kind === 'benchmark' ? 'signal' : 'benchmark'}, or name one)` : '';
    throw new SetupError(`${runsDir}: no ${kind === 'signal' ? 'signal ' : ''}report JSON found${other} (run \`bench ${kind === 'signal' ? 'signal' : 'run'}\` first, or name a report: bench report <run-id|report.json|trace.db>)`);
  }
  // Ties (same microsecond) fall back to the file name so the choice is still deterministic.
  all.sort((a, b) => a.startedUs - b.startedUs || a.path.localeCompare(b.path));
  return all.at(-1)!.path;
}

/**
 * Resolves `bench report [RUN]` to a validated report: RUN may be a report JSON path, a trace DB path
 * (the JSON beside it, `<db minus .db>.json`), or a run id looked up in `runsDir`; no RUN = the latest.
 */
export function findReport(run: string | undefined, options: FindReportOptions): FoundReport {
  const runsDir = resolve(options.cwd, options.runsDir);
  if (run === undefined) return loadReport(latestReportPath(runsDir, options.kind ?? 'benchmark'));
  const asPath = resolve(options.cwd, run);
  if (run.endsWith('.db')) {
    const json = asPath.replace(/\.db$/, '.json');
    if (!existsSync(json)) throw new SetupError(`${json}: no report JSON beside the trace DB ${asPath} (was the report written elsewhere with --json?)`);
    return loadReport(json);
  }
  // A run id never contains a path separator or ends in .json; anything else that looks like a path is one.
  if (existsSync(asPath) || run.endsWith('.json') || /[\\/]/.test(run)) return loadReport(asPath);
  const match = reportsIn(runsDir).filter((r) => r.runId === run);
  if (match.length === 0) throw new SetupError(`${runsDir}: no report for run '${run}' (pass a report JSON or trace DB path instead)`);
  match.sort((a, b) => a.startedUs - b.startedUs || a.path.localeCompare(b.path));
  return loadReport(match.at(-1)!.path);
}
