// `bench run --workload <matrix>`: the matrix protocol on one recorded-outcome matrix; prints the
// report, writes its DB and JSON. `bench analyze --db-path` and `bench report` read them back.
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { MatrixReport } from '../../schemas/types/matrix-report.ts';
import { formatAjvErrors, validatorFor } from '../../runtime/core/schemas.ts';
import type { CliIO } from '../cli/command.ts';
import { SetupError } from '../errors.ts';
import { workloadKind } from '../workloads/workload-kind.ts';
import { buildMatrixReport, type SettingName } from './matrix-report.ts';
import { isMatrixRunDb, readMatrixRun } from './matrix-run-db.ts';
import { renderMatrixHtml, renderMatrixMarkdown, renderMatrixText } from './render-matrix.ts';
import { runMatrix } from '../protocols/matrix-run-protocol.ts';
import { ALL_SETTINGS, type MatrixRunOptions } from './run-matrix.ts';

/** True when every selected name is a matrix workload (and there is at least one); mixing kinds is a setup error. */
export function selectsMatrix(workloadsDir: string, names: readonly string[]): boolean {
  const matrices = names.filter((n) => workloadKind(join(workloadsDir, n)) === 'matrix');
  if (matrices.length && matrices.length !== names.length) throw new SetupError(`--workload mixes matrix workloads (${matrices.join(', ')}) with others: run them in separate invocations`);
  if (matrices.length > 1) throw new SetupError(`--workload: one matrix per run (got ${matrices.join(', ')}); run each in its own invocation`);
  return matrices.length === 1;
}

/** Parses --matrix-settings: a comma list of in_sample, unseen_tasks, new_workspace, online. */
export function parseSettings(text: string | undefined): SettingName[] {
  if (!text) return [...ALL_SETTINGS];
  const out = text.split(',').map((s) => s.trim());
  for (const s of out) if (!(ALL_SETTINGS as readonly string[]).includes(s)) throw new SetupError(`--matrix-settings: unknown setting '${s}'; choose from ${ALL_SETTINGS.join(', ')}`);
  return out as SettingName[];
}

/** Runs the protocol and prints the report; 0 when it ran (a router that does not beat the hull is a finding, not a failure). */
export async function runMatrixCommand(o: MatrixRunOptions, io: CliIO, width: number | null = null, quiet = false): Promise<number> {
  // One line per setting, and a meter of routing decisions in between (nothing with --quiet).
  const progress = (t: string) => (quiet ? undefined : io.progress(t.endsWith('\n') || t.startsWith('\r') ? t : `${t}\n`));
  const { report, dbPath, jsonPath } = await runMatrix(o, { cwd: io.cwd, env: io.env, progress, progressMode: quiet ? 'off' : io.isTTY ? 'tty' : 'lines' });
  io.out(renderMatrixText(report, { json: jsonPath, db: dbPath, width, names: modelNames(report) }));
  return 0;
}

/**
 * The display names the importer gave the matrix's models (`label` in its outcomes header), by id; empty when
 * the file is gone or names none. Only the header line is read.
 */
export function modelNames(report: MatrixReport): Record<string, string> {
  let head: string;
  try {
    const fd = openSync(report.provenance.matrix_path, 'r');
    try {
      const buf = Buffer.alloc(1 << 16);
      head = buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('utf8').split('\n')[0]!;
    } finally {
      closeSync(fd);
    }
  } catch {
    return {};
  }
  try {
    const models = (JSON.parse(head) as { models?: { id?: unknown; label?: unknown }[] }).models ?? [];
    return Object.fromEntries(models.filter((m) => typeof m.id === 'string' && typeof m.label === 'string').map((m) => [m.id as string, m.label as string]));
  } catch {
    // A header longer than the buffer or not JSON: the ids are shown.
    return {};
  }
}

/** `bench analyze --db-path <matrix DB>`: every figure again from the DB alone. */
export function analyzeMatrixDb(path: string, runId: string | undefined): MatrixReport {
  return buildMatrixReport(readMatrixRun(path, runId));
}

/** A matrix report read from its JSON (validated) or rebuilt from its DB; null when `path` is neither. */
export function readMatrixReport(path: string): MatrixReport | null {
  if (isMatrixRunDb(path)) return analyzeMatrixDb(path, undefined);
  if (!path.endsWith('.json')) return null;
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
  if ((doc as { kind?: unknown } | null)?.kind !== 'matrix') return null;
  const validate = validatorFor<MatrixReport>('matrix-report.schema.json');
  if (!validate(doc)) throw new SetupError(`${path}: not a valid matrix report: ${formatAjvErrors(validate.errors).join('; ')}`);
  return doc;
}

/** The report in one of `bench report`'s formats. */
export function renderMatrixAs(report: MatrixReport, format: 'table' | 'md' | 'html' | 'json', paths: { json: string | null; db: string | null }, width: number | null = null): string {
  if (format === 'md') return renderMatrixMarkdown(report);
  if (format === 'html') return renderMatrixHtml(report, modelNames(report));
  if (format === 'json') return JSON.stringify(report, null, 2);
  return renderMatrixText(report, { ...paths, width, names: modelNames(report) });
}
