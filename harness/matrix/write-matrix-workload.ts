// Writes an imported matrix workload all at once: into a temp directory beside the target, checked by
// the loader, then renamed into place, so a failed import never leaves a partial workload behind.
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { basename, dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Decimal } from 'decimal.js';
import { stringify } from 'yaml';
import type { PriceTable } from '../../runtime/pricing/index.ts';
import type { MatrixHeader, MatrixTaskLine } from '../../schemas/types/outcome-matrix.ts';
import { SetupError } from '../errors.ts';
import type { MatrixSummary } from './matrix-summary.ts';
import { foldOutcomeMatrixFile, loadOutcomeMatrixFile, type MatrixWorkloadSpec, type OutcomeMatrix } from './outcome-matrix.ts';

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

// A U+FFFD in the data is written as its JSON escape: the loader reads a raw one as a decoding error.
const json = (v: unknown) => JSON.stringify(v).replace(/\uFFFD/g, '\\ufffd');

/** Writes workload.yaml, the outcomes file and the extra files to `out` atomically; returns the matrix as loaded back. */
export async function writeMatrixWorkload(out: string, files: MatrixWorkloadFiles, priceTable?: PriceTable): Promise<OutcomeMatrix> {
  const abs = checkOutDir(out);
  const tmp = join(dirname(abs), `.${basename(abs)}.import-${process.pid}-${Date.now()}`);
  mkdirSync(tmp);
  try {
    const spec: MatrixWorkloadSpec = { kind: 'matrix', name: basename(abs), description: files.spec.description, suite_version: 1, outcomes: OUTCOMES_FILE, source: files.spec.source };
    writeFileSync(join(tmp, 'workload.yaml'), stringify(spec, { lineWidth: 0 }));
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

/** Writes one line, waiting when the stream's buffer is full (so a large import never queues in memory). */
async function writeLine(ws: WriteStream, line: string): Promise<void> {
  if (!ws.write(`${line}\n`)) await once(ws, 'drain');
}

async function closeStream(ws: WriteStream): Promise<void> {
  ws.end();
  await once(ws, 'finish');
}

/** A matrix workload written task by task, for imports too large to hold (see `openMatrixWorkload`). */
export interface MatrixWorkloadWriter {
  /** Appends one task (its cluster may still be changed by `finish`'s relabel). */
  task(line: MatrixTaskLine): Promise<void>;
  /**
   * Writes the header and the tasks (each through `relabel`, given its index, when set), workload.yaml and the
   * extra files; loads the outcomes back line by line; renames the directory into place. Returns the figures
   * `bench import` prints, computed during that load.
   */
  finish(files: Omit<MatrixWorkloadFiles, 'tasks'>, options?: { relabel?: (task: MatrixTaskLine, index: number) => MatrixTaskLine; priceTable?: PriceTable }): Promise<MatrixSummary>;
  /** Removes everything written so far. */
  abort(): Promise<void>;
}

/** Opens a matrix workload at `out` to be written task by task into a temp directory beside it. */
export function openMatrixWorkload(out: string): MatrixWorkloadWriter {
  const abs = checkOutDir(out);
  const tmp = join(dirname(abs), `.${basename(abs)}.import-${process.pid}-${Date.now()}`);
  mkdirSync(tmp);
  // Tasks go to a scratch file first: the header must come first, and relabelling needs every task seen.
  const scratch = join(tmp, '.tasks.jsonl');
  const ws = createWriteStream(scratch);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await closeStream(ws);
  };
  return {
    task: (line) => writeLine(ws, json(line)),
    async abort() {
      await close().catch(() => {});
      rmSync(tmp, { recursive: true, force: true });
    },
    async finish(files, options = {}) {
      try {
        await close();
        const spec: MatrixWorkloadSpec = { kind: 'matrix', name: basename(abs), description: files.spec.description, suite_version: 1, outcomes: OUTCOMES_FILE, source: files.spec.source };
        writeFileSync(join(tmp, 'workload.yaml'), stringify(spec, { lineWidth: 0 }));
        const outcomes = createWriteStream(join(tmp, OUTCOMES_FILE));
        await writeLine(outcomes, json(files.header));
        const input = createReadStream(scratch, { encoding: 'utf8' });
        let index = 0;
        for await (const text of createInterface({ input, crlfDelay: Infinity })) {
          await writeLine(outcomes, options.relabel ? json(options.relabel(JSON.parse(text) as MatrixTaskLine, index)) : text);
          index += 1;
        }
        await closeStream(outcomes);
        rmSync(scratch);
        for (const [name, text] of Object.entries(files.extra)) writeFileSync(join(tmp, name), text);
        // Loaded back before it is put in place, as writeMatrixWorkload does, but folded: the figures, not the matrix.
        const clusters = new Set<string>();
        const score: number[] = files.header.models.map(() => 0);
        const cost: Decimal[] = files.header.models.map(() => new Decimal(0));
        const fold = await foldOutcomeMatrixFile(join(tmp, OUTCOMES_FILE), options.priceTable ? { priceTable: options.priceTable } : {}, (task, cells) => {
          clusters.add(task.cluster);
          cells.forEach((c, j) => {
            score[j]! += c.score;
            cost[j] = cost[j]!.plus(c.costUsd);
          });
        });
        if (existsSync(abs)) rmSync(abs, { recursive: true });
        renameSync(tmp, abs);
        const n = fold.tasks;
        return { tasks: n, clusters: clusters.size, models: fold.models.map((m, j) => ({ id: m.id, solvedRate: score[j]! / n, meanCostUsd: cost[j]!.dividedBy(n) })) };
      } catch (e) {
        rmSync(tmp, { recursive: true, force: true });
        throw e;
      }
    },
  };
}
