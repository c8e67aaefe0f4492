// Writes an imported matrix workload all at once: into a temp directory beside the target, checked by
// the loader, then renamed into place, so a failed import never leaves a partial workload behind.
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { stringify } from 'yaml';
import type { PriceTable } from '../../runtime/pricing/index.ts';
import type { MatrixHeader, MatrixTaskLine } from '../../schemas/types/outcome-matrix.ts';
import { SetupError } from '../errors.ts';
import { loadOutcomeMatrixFile, type MatrixWorkloadSpec, type OutcomeMatrix } from './outcome-matrix.ts';

/** File name importers give the outcomes file. */
export const OUTCOMES_FILE = 'outcomes.jsonl';

/** What an importer hands over to be written. */
export interface MatrixWorkloadFiles {
  spec: Omit<MatrixWorkloadSpec, 'kind' | 'name' | 'suite_version' | 'outcomes'>;
  header: MatrixHeader;
  tasks: readonly MatrixTaskLine[];
  /** Other files beside workload.yaml (LICENSE, README.md), by name. */
  extra: Record<string, string>;
}

const SLUG = /^[a-z0-9][a-z0-9-]*$/;

/** Refuses an --out whose name is not a workload slug or that already holds something; returns its absolute path. */
export function checkOutDir(out: string): string {
  const abs = resolve(out);
  const name = basename(abs);
  if (!SLUG.test(name)) throw new SetupError(`--out ${abs}: the directory name '${name}' becomes the workload name and must be a slug (lower-case letters, digits, hyphens; e.g. routellm-mmlu)`);
  if (existsSync(abs) && readdirSync(abs).length > 0) throw new SetupError(`--out ${abs}: already exists and is not empty (remove it, or choose another --out)`);
  if (!existsSync(dirname(abs))) throw new SetupError(`--out ${abs}: its parent directory ${dirname(abs)} does not exist (create it first)`);
  return abs;
}

/** Writes workload.yaml, the outcomes file and the extra files to `out` atomically; returns the matrix as loaded back. */
export async function writeMatrixWorkload(out: string, files: MatrixWorkloadFiles, priceTable?: PriceTable): Promise<OutcomeMatrix> {
  const abs = checkOutDir(out);
  const tmp = join(dirname(abs), `.${basename(abs)}.import-${process.pid}-${Date.now()}`);
  mkdirSync(tmp);
  try {
    const spec: MatrixWorkloadSpec = { kind: 'matrix', name: basename(abs), description: files.spec.description, suite_version: 1, outcomes: OUTCOMES_FILE, source: files.spec.source };
    writeFileSync(join(tmp, 'workload.yaml'), stringify(spec, { lineWidth: 0 }));
    // A U+FFFD in the data is written as its JSON escape: the loader reads a raw one as a decoding error.
    const json = (v: unknown) => JSON.stringify(v).replace(/\uFFFD/g, '\\ufffd');
    const lines = [json(files.header), ...files.tasks.map(json)];
    writeFileSync(join(tmp, OUTCOMES_FILE), `${lines.join('\n')}\n`);
    for (const [name, text] of Object.entries(files.extra)) writeFileSync(join(tmp, name), text);
    // Loaded back before it is put in place: what an importer writes, the loader must accept.
    const matrix = await loadOutcomeMatrixFile(join(tmp, OUTCOMES_FILE), priceTable ? { priceTable } : {});
    if (existsSync(abs)) rmSync(abs, { recursive: true });
    renameSync(tmp, abs);
    return { ...matrix, name: spec.name, path: join(abs, OUTCOMES_FILE), source: spec.source };
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}
