import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { refuseExisting } from '../refuse-existing.ts';
import type { Database } from 'better-sqlite3';
import { PACKAGE_VERSION } from '../package-version.ts';
import { readRunTraces } from '../run-trace.ts';
import { inspectEvalLog, passesOf } from './inspect-log.ts';
import { inspectErrors, inspectEvalLogValidator } from './inspect-schema.ts';

/** One written log. */
export interface WrittenLog {
  path: string;
  runId: string;
  pass: string;
  samples: number;
}

/** Inspect's own naming: `<created>_<task>_<id>.json`, with characters a file name cannot hold replaced. */
export function inspectLogName(created: string, runId: string, pass: string): string {
  const ts = created.slice(0, 19).replace(/:/g, '-');
  return `${ts}+00-00_metis-bench-${pass}_${runId}.json`.replace(/[^A-Za-z0-9._+-]/g, '-');
}

/**
 * Writes one Inspect eval log per (run, pass) of the DB into `outDir`; each is validated against the
 * shipped EvalLog schema first, and a log that fails is an internal error naming the file and the first
 * failing paths (nothing is written for it).
 */
export function exportInspect(db: Database, opts: { dbPath: string; runId: string | null; includeContent: boolean; outDir: string; force: boolean }): WrittenLog[] {
  const validate = inspectEvalLogValidator();
  const logs: { path: string; log: Record<string, unknown>; runId: string; pass: string }[] = [];
  for (const run of readRunTraces(db, opts.dbPath, opts.runId)) {
    for (const pass of passesOf(run)) {
      const log = inspectEvalLog(run, pass, { includeContent: opts.includeContent, packageVersion: PACKAGE_VERSION });
      const path = join(opts.outDir, inspectLogName(String((log.eval as { created: string }).created), run.runId, pass));
      if (!validate(log)) throw new Error(`internal error: the Inspect log for ${run.runId} pass ${pass} (${path}) breaks schemas/third-party/inspect EvalLog: ${inspectErrors(validate.errors).join('; ')}`);
      logs.push({ path, log, runId: run.runId, pass });
    }
  }
  // Every name is known before the first write: an existing log is refused whole, never half-replaced.
  if (!opts.force) for (const l of logs) refuseExisting(l.path, '--out DIR');
  mkdirSync(opts.outDir, { recursive: true });
  const written = logs.map(({ path, log, runId, pass }) => {
    writeFileSync(path, `${JSON.stringify(log, null, 1)}\n`);
    return { path, runId, pass, samples: (log.samples as unknown[]).length };
  });
  // Inspect's viewer, served over plain HTTP from the folder, lists the logs from this file: each log's preview by file name.
  // Logs already in the folder (an earlier export) stay listed.
  const listingPath = join(opts.outDir, LISTING_FILE);
  const listing = Object.fromEntries(logs.map(({ path, log }) => [basename(path), logPreview(log)]));
  writeFileSync(listingPath, `${JSON.stringify({ ...readListing(listingPath), ...listing }, null, 1)}\n`);
  return written;
}

/** The file Inspect's log viewer reads to list the logs of a folder. */
export const LISTING_FILE = 'listing.json';

/** What Inspect's viewer reads of a log from a listing (its `LogPreview`): the task, model, status, times and the first score's first metric. */
export interface InspectLogPreview {
  eval_id: string;
  run_id: string;
  task: string;
  task_id: string;
  task_version: number | string;
  version: number;
  status: string;
  error: unknown;
  model: string;
  started_at: string | undefined;
  completed_at: string | undefined;
  primary_metric: Record<string, unknown> | undefined;
}

/**
 * A log's entry in the listing. The viewer shows these fields as they are (a whole header there leaves the
 * task, model, score and status columns empty until each log is opened), so they sit at the top level.
 */
export function logPreview(log: Record<string, unknown>): InspectLogPreview {
  const ev = log.eval as Record<string, unknown>;
  const stats = log.stats as { started_at?: string; completed_at?: string } | undefined;
  const scores = (log.results as { scores?: { metrics?: Record<string, Record<string, unknown>> }[] } | undefined)?.scores ?? [];
  return {
    eval_id: String(ev.eval_id),
    run_id: String(ev.run_id),
    task: String(ev.task),
    task_id: String(ev.task_id),
    task_version: ev.task_version as number | string,
    version: log.version as number,
    status: String(log.status),
    error: log.error ?? null,
    model: String(ev.model),
    started_at: stats?.started_at,
    completed_at: stats?.completed_at,
    primary_metric: Object.values(scores[0]?.metrics ?? {})[0],
  };
}

/** The listing already in the folder, or none when it is missing or unreadable (it is rewritten whole). */
function readListing(path: string): Record<string, unknown> {
  if (!existsSync(path)) return {};
  try {
    const data = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
