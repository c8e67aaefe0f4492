// Recorded-outcome matrices (kind: matrix workloads): what real models did on the same tasks.
// The file format is schemas/outcome-matrix.schema.json (JSONL: a header line declaring the models,
// then one task per line); workload.yaml is schemas/matrix-workload.schema.json.
import { createReadStream, existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Decimal } from 'decimal.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { sharedAjv, validatorFor } from '../../runtime/core/schemas.ts';
import { DataFileError, loadYamlValidated } from '../../runtime/core/yaml-document.ts';
import { costOf, loadPriceTable, type PriceTable } from '../../runtime/pricing/index.ts';
import type { MatrixHeader, MatrixModelEntry, MatrixTaskLine, OutcomeMatrixLine } from '../../schemas/types/outcome-matrix.ts';
import type { MatrixWorkload as MatrixWorkloadSpec } from '../../schemas/types/matrix-workload.ts';
import { SetupError } from '../errors.ts';
import { checkInputSize } from '../input-limits.ts';
import { DigestTable, textDigest } from './digest-table.ts';

export type { MatrixWorkloadSpec };

/** One model of a matrix. */
export interface MatrixModel {
  id: string;
  /** Where its cost comes from: recorded USD per cell, or tokens priced from the price table. */
  price_source: MatrixModelEntry['price_source'];
  /** Display name, when the source gives one. */
  label?: string;
}

/** One task (row). */
export interface MatrixTask {
  id: string;
  text: string;
  cluster: string;
  meta?: Record<string, unknown>;
}

/** One recorded outcome (cell). */
export interface MatrixCell {
  /** In [0, 1]; solved = 1. */
  score: number;
  costUsd: Decimal;
  inputTokens?: number;
  outputTokens?: number;
  calls?: number;
  latencyMs?: number;
}

/** Where a matrix's data comes from, with its licence and credit. */
export interface MatrixSourceInfo {
  name: string;
  licence: string;
  url?: string;
  credit?: string;
}

/** A loaded recorded-outcome matrix: cells[t][m] is task t on model m (order of `tasks` and `models`). */
export interface OutcomeMatrix {
  name: string;
  /** The outcomes file. */
  path: string;
  source: MatrixSourceInfo;
  models: MatrixModel[];
  tasks: MatrixTask[];
  cells: MatrixCell[][];
  /** The price table version that priced the price-table models' tokens (null when none did). */
  pricingVersion: string | null;
}

/** The workload.yaml of a matrix workload, and where it lives. */
export interface MatrixWorkload {
  spec: MatrixWorkloadSpec;
  dir: string;
  /** Absolute path of the outcomes file. */
  outcomesPath: string;
}

/** File name of every workload's spec, agent or matrix. */
export const WORKLOAD_FILE = 'workload.yaml';
const SCHEMA_ID = 'https://metis.dev/schemas/outcome-matrix.schema.json';
const SCHEMA_HINT = 'see schemas/outcome-matrix.schema.json';

/** Options of the loaders. */
export interface LoadMatrixOptions {
  /** Prices the price-table models; default the shipped runtime/data/prices.json. */
  priceTable?: PriceTable;
}

/** Loads and validates a matrix workload's workload.yaml (not its outcomes). */
export function loadMatrixWorkloadSpec(dir: string): MatrixWorkload {
  const abs = resolve(dir);
  const file = join(abs, WORKLOAD_FILE);
  if (!existsSync(file)) throw new SetupError(`${file}: no ${WORKLOAD_FILE} in ${abs}`);
  checkInputSize(file, 'workload_file');
  let spec: MatrixWorkloadSpec;
  try {
    spec = loadYamlValidated<MatrixWorkloadSpec>(file, validatorFor<MatrixWorkloadSpec>('matrix-workload.schema.json'));
  } catch (e) {
    if (e instanceof DataFileError) throw new SetupError(e.message);
    throw e;
  }
  if (spec.name !== basename(abs)) throw new SetupError(`${file}: name '${spec.name}' does not match its directory '${basename(abs)}' (rename one of them)`);
  const outcomesPath = join(abs, spec.outcomes);
  if (!existsSync(outcomesPath)) throw new SetupError(`${file}: outcomes file ${outcomesPath} does not exist (set outcomes: to the .jsonl file beside workload.yaml)`);
  return { spec, dir: abs, outcomesPath };
}

/** Loads a matrix workload directory: its workload.yaml, then its outcomes file, streaming. */
export async function loadOutcomeMatrix(workloadDir: string, options: LoadMatrixOptions = {}): Promise<OutcomeMatrix> {
  const w = loadMatrixWorkloadSpec(workloadDir);
  const m = await loadOutcomeMatrixFile(w.outcomesPath, options);
  const source: MatrixSourceInfo = { name: w.spec.source.name, licence: w.spec.source.licence };
  if (w.spec.source.url !== undefined) source.url = w.spec.source.url;
  if (w.spec.source.credit !== undefined) source.credit = w.spec.source.credit;
  return { ...m, name: w.spec.name, source };
}

/** A problem at one line of an outcomes file: file:line, what is wrong, and the fix. */
function lineError(file: string, line: number, problem: string, fix: string): SetupError {
  return new SetupError(`${file}:${line}: ${problem} (${fix})`);
}

let lineValidators: { header: ValidateFunction<MatrixHeader>; task: ValidateFunction<MatrixTaskLine> } | undefined;

/** Validators of the header and task lines (sub-schemas of outcome-matrix.schema.json), compiled once. */
function validators(): NonNullable<typeof lineValidators> {
  if (!lineValidators) {
    validatorFor<OutcomeMatrixLine>('outcome-matrix.schema.json');
    const get = <T>(def: string) => sharedAjv().getSchema(`${SCHEMA_ID}#/definitions/${def}`) as ValidateFunction<T>;
    lineValidators = { header: get<MatrixHeader>('MatrixHeader'), task: get<MatrixTaskLine>('MatrixTaskLine') };
  }
  return lineValidators;
}

/** The first schema error of a line as a problem and a fix a user can act on. */
function explainSchemaError(errors: readonly ErrorObject[] | null | undefined, models: readonly MatrixModel[] | null): { problem: string; fix: string } {
  const all = errors ?? [];
  // An anyOf (usd) reports its branches first; the anyOf error itself names the field.
  const e = all.find((x) => x.keyword === 'additionalProperties') ?? all.find((x) => x.keyword === 'anyOf') ?? all[0];
  if (!e) return { problem: 'does not match the schema', fix: SCHEMA_HINT };
  const path = e.instancePath;
  const cell = /^\/cells\/(\d+)(?:\/(\w+))?$/.exec(path);
  const where = cell ? `cell ${Number(cell[1]) + 1}${models?.[Number(cell[1])] ? ` (model ${models[Number(cell[1])]!.id})` : ''}` : path || 'the line';
  if (e.keyword === 'additionalProperties') {
    const name = (e.params as { additionalProperty: string }).additionalProperty;
    return { problem: `unknown key '${name}' in ${where}`, fix: `remove it or check its spelling; ${SCHEMA_HINT}` };
  }
  if (e.keyword === 'required') {
    const name = (e.params as { missingProperty: string }).missingProperty;
    return { problem: `${where} has no '${name}'`, fix: `add '${name}'; ${SCHEMA_HINT}` };
  }
  const field = cell?.[2];
  if (field === 'score') return { problem: `${where}: score must be a number in [0, 1] (${e.message ?? e.keyword})`, fix: 'write the score as a number from 0 to 1, 1 = solved' };
  if (field === 'usd') return { problem: `${where}: usd must be a finite non-negative amount`, fix: 'write the recorded cost as a non-negative decimal string such as "0.0123"' };
  if (field === 'in' || field === 'out' || field === 'calls')
    return { problem: `${where}: ${field} must be a non-negative integer (${e.message ?? e.keyword})`, fix: `write ${field} as a whole number >= 0` };
  if (field === 'ms') return { problem: `${where}: ms must be a finite non-negative number`, fix: 'write the latency in milliseconds, >= 0' };
  return { problem: `${path || '(line)'}: ${e.message ?? e.keyword}`, fix: SCHEMA_HINT };
}

/** Turns a validated cell into its in-memory form, pricing tokens when the model's cost comes from the price table. */
function toCell(
  raw: MatrixTaskLine['cells'][number],
  model: MatrixModel,
  priceTable: PriceTable | null,
  costMemo: Map<string, Decimal>,
  at: (problem: string, fix: string) => SetupError,
  /** Names the cell in a message; built only when there is one. */
  where: () => string,
): MatrixCell {
  let costUsd: Decimal;
  if (model.price_source === 'recorded') {
    if (raw.usd === undefined) throw at(`${where()} has no 'usd', but model ${model.id} has price_source recorded`, "add the task's recorded cost as usd, or declare the model price_source: price-table with in/out tokens");
    // A JSON number goes through its shortest decimal form, which is the literal as written for any cost a file would hold.
    costUsd = new Decimal(typeof raw.usd === 'number' ? String(raw.usd) : raw.usd);
  } else {
    if (raw.in === undefined || raw.out === undefined)
      throw at(`${where()} has no '${raw.in === undefined ? 'in' : 'out'}' tokens, but model ${model.id} has price_source price-table`, 'add in and out token counts, or declare the model price_source: recorded with usd per cell');
    // Decimal arithmetic dominates a large load; token pairs repeat (MMLU answers are all one token), and a Decimal is immutable, so share it.
    const key = `${model.id}\u0000${raw.in}:${raw.out}`;
    const hit = costMemo.get(key);
    costUsd = hit ?? costOf({ input_tokens: raw.in, output_tokens: raw.out, cached_input_tokens: 0, cache_creation_input_tokens: 0 }, priceTable!.rates(model.id)!);
    if (!hit) costMemo.set(key, costUsd);
  }
  const cell: MatrixCell = { score: raw.score, costUsd };
  if (raw.in !== undefined) cell.inputTokens = raw.in;
  if (raw.out !== undefined) cell.outputTokens = raw.out;
  if (raw.calls !== undefined) cell.calls = raw.calls;
  if (raw.ms !== undefined) cell.latencyMs = raw.ms;
  return cell;
}

/**
 * Loads an outcomes file line by line (readline, so a large file never sits in memory as one string).
 * Every problem is a SetupError naming the file, the line and the fix; input errors exit 2. A bare file
 * has no workload.yaml: its name is the file name and its source unknown until `loadOutcomeMatrix` sets them.
 */
export async function loadOutcomeMatrixFile(file: string, options: LoadMatrixOptions = {}): Promise<OutcomeMatrix> {
  const tasks: MatrixTask[] = [];
  const cells: MatrixCell[][] = [];
  const r = await foldOutcomeMatrixFile(file, options, (task, row) => {
    tasks.push(task);
    cells.push(row);
  });
  return { name: basename(r.path), path: r.path, source: { name: basename(r.path), licence: 'unknown' }, models: r.models, tasks, cells, pricingVersion: r.pricingVersion };
}

/** What a fold over an outcomes file learnt besides its tasks. */
export interface OutcomeMatrixFold {
  path: string;
  models: MatrixModel[];
  pricingVersion: string | null;
  tasks: number;
}

/**
 * Reads and checks an outcomes file as `loadOutcomeMatrixFile` does, handing each task and its cells to
 * `onTask` instead of keeping them: memory holds the task ids (to refuse a repeat), not the matrix.
 */
export async function foldOutcomeMatrixFile(file: string, options: LoadMatrixOptions, onTask: (task: MatrixTask, cells: MatrixCell[]) => void): Promise<OutcomeMatrixFold> {
  const path = resolve(file);
  if (!existsSync(path)) throw new SetupError(`${path}: outcomes file not found (check the path, or outcomes: in workload.yaml)`);
  checkInputSize(path, 'matrix_outcomes');
  const v = validators();
  let models: MatrixModel[] | null = null;
  let priceTable: PriceTable | null = null;
  let count = 0;
  // Task ids by their digest, not the text: a million-task import's ids as a Map of strings were about 80 MB.
  const seen = new DigestTable();
  const costMemo = new Map<string, Decimal>();
  let lineNo = 0;
  const input = createReadStream(path, { encoding: 'utf8' });
  const lines = createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const text of lines) {
      lineNo += 1;
      const at = (problem: string, fix: string) => lineError(path, lineNo, problem, fix);
      if (text.trim() === '') {
        if (models === null) throw at('line 1 is empty; the first line must be the header', 'start the file with {"outcome_matrix":1,"models":[...]}');
        continue;
      }
      // readline decodes bad UTF-8 bytes to U+FFFD without a word; refuse them like the agent loader does.
      if (text.includes('\uFFFD'))
        throw at(
          `not valid UTF-8 at column ${text.indexOf('\uFFFD') + 1} (or a literal U+FFFD replacement character)`,
          'save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8); write a real U+FFFD as the JSON escape \\ufffd',
        );
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch (e) {
        throw at(`bad JSON: ${(e as Error).message}`, 'write one complete JSON object per line (JSON Lines); a task may not span lines');
      }
      if (models === null) {
        if (!v.header(data)) {
          const { problem, fix } = explainSchemaError(v.header.errors, null);
          throw at(`not a matrix header: ${problem}`, `line 1 must be {"outcome_matrix":1,"models":[{"id":...,"price_source":"recorded"|"price-table"}]}; ${fix}`);
        }
        models = data.models.map((m) => ({ id: m.id, price_source: m.price_source, ...(m.label !== undefined ? { label: m.label } : {}) }));
        const dup = models.find((m, i) => models!.findIndex((x) => x.id === m.id) !== i);
        if (dup) throw at(`model '${dup.id}' is declared twice`, 'declare each model once in the header');
        for (const m of models.filter((x) => x.price_source === 'price-table')) {
          priceTable ??= options.priceTable ?? loadPriceTable();
          if (!priceTable.rates(m.id))
            throw at(
              `unknown model '${m.id}': price_source is price-table but ${priceTable.path ?? 'the price table'} has no rates for it (known: ${priceTable.models().join(', ')})`,
              'add the model to runtime/data/prices.json with its source and as_of, fix the id, or declare it price_source: recorded with usd per cell',
            );
        }
        continue;
      }
      if (!v.task(data)) {
        const { problem, fix } = explainSchemaError(v.task.errors, models);
        const id = typeof (data as { id?: unknown } | null)?.id === 'string' ? ` task '${(data as { id: string }).id}':` : '';
        throw at(`${id} ${problem}`.trim(), fix);
      }
      const row = data;
      const [hi, lo, check] = textDigest(row.id);
      const first = seen.get(hi, lo);
      if (first === null) seen.set(hi, lo, [lineNo, check]);
      // The third word tells a repeat from a 64-bit collision (which leaves the first id's entry in place).
      else if (first[1] === check) throw at(`duplicate task id '${row.id}' (first on line ${first[0]})`, 'give every task a unique id, or remove the repeated line');
      if (row.cells.length < models.length) {
        const missing = models[row.cells.length]!;
        throw at(`task '${row.id}': missing cell for model ${missing.id} (${row.cells.length} of ${models.length} cells)`, 'give every task one cell per header model, in header order (line 1)');
      }
      if (row.cells.length > models.length)
        throw at(`task '${row.id}': ${row.cells.length} cells but the header declares ${models.length} models`, 'remove the extra cells or declare the model in the header (line 1)');
      const out: MatrixCell[] = row.cells.map((c, i) => toCell(c, models![i]!, priceTable, costMemo, at, () => `task '${row.id}' cell ${i + 1} (model ${models![i]!.id})`));
      const task: MatrixTask = { id: row.id, text: row.text, cluster: row.cluster };
      if (row.meta !== undefined) task.meta = row.meta as Record<string, unknown>;
      onTask(task, out);
      count += 1;
    }
  } catch (e) {
    if (e instanceof SetupError) throw e;
    throw new SetupError(`${path}: cannot read outcomes file: ${(e as Error).message} (check the file exists and is readable)`);
  } finally {
    lines.close();
    input.destroy();
  }
  if (models === null) throw lineError(path, 1, 'empty outcomes file: no header line', 'start the file with {"outcome_matrix":1,"models":[...]} then one task per line');
  if (count === 0) throw lineError(path, lineNo + 1, 'no task lines after the header', 'add one JSON object per task after line 1');
  return { path, models, pricingVersion: priceTable?.version ?? null, tasks: count };
}
