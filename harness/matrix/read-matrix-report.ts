// A matrix run's report read back: from its JSON (validated) or rebuilt from its DB, and rendered in
// `bench report`'s formats with the models' display names. `bench analyze --db-path` and `bench report` use it.
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import type { MatrixReport } from '../../schemas/types/matrix-report.ts';
import { formatAjvErrors, validatorFor } from '../../runtime/core/schemas.ts';
import { SetupError } from '../errors.ts';
import { buildMatrixReport } from './matrix-report.ts';
import { isMatrixRunDb, readMatrixRun } from './matrix-run-db.ts';
import { renderMatrixHtml, renderMatrixMarkdown, renderMatrixText } from './render-matrix.ts';

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
