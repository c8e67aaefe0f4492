// `bench import routellm`: RouteLLM's evaluation CSVs (lm-sys/RouteLLM routellm/evals) as a matrix workload.
// Correctness comes from the CSVs; cost from token counts at each model's list price in the price table.
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validatorFor, formatAjvErrors } from '../../runtime/core/schemas.ts';
import { loadPriceTable, type PriceTable } from '../../runtime/pricing/index.ts';
import { createTiktokenCounter, type TokenCounter } from '../../runtime/providers/sim/token-counter.ts';
import type { MatrixCellEntry, MatrixTaskLine } from '../../schemas/types/outcome-matrix.ts';
import type { RoutellmModels } from '../../schemas/types/routellm-models.ts';
import { SetupError } from '../errors.ts';
import { checkInputSize, type InputKind } from '../input-limits.ts';
import { CsvSyntaxError, parseCsv, type CsvRecord } from './csv-records.ts';
import type { OutcomeMatrix } from './outcome-matrix.ts';
import { checkOutDir, writeMatrixWorkload } from './write-matrix-workload.ts';

/** The CSV column -> canonical model id map the importer uses. */
export const ROUTELLM_MODELS_PATH = fileURLToPath(new URL('../data/routellm-models.json', import.meta.url));
/** Where RouteLLM's evaluation data lives upstream. */
export const ROUTELLM_REPO = 'https://github.com/lm-sys/RouteLLM';
/** The credit RouteLLM asks for. */
export const ROUTELLM_CREDIT = 'Ong et al., 2024, "RouteLLM: Learning to Route LLMs with Preference Data" (arXiv:2406.18665), lm-sys/RouteLLM';
/** Output tokens assumed per MMLU answer: the CSVs hold no answer text, and the graded answer is one letter. */
export const MMLU_OUTPUT_TOKENS = 1;
/** GSM8K has no subjects: its tasks are split into this many equal clusters by prompt length (see docs/decisions.md). */
export const GSM8K_LENGTH_CLUSTERS = 10;
const CONTAMINATED_FILE = 'contaminated_prompts.jsonl';

/** Options of `bench import routellm`. */
export interface RoutellmImportOptions {
  csvs: string[];
  out: string;
  /** The dataset's licence file; default a LICENSE beside the CSVs or one directory up. */
  licence?: string;
  /** The upstream commit the CSVs come from, recorded in the source URL. */
  sourceCommit?: string;
  priceTable?: PriceTable;
  tokenCounter?: TokenCounter;
}

/** What one CSV contributed. */
export interface RoutellmFileSummary {
  file: string;
  dataset: 'mmlu' | 'gsm8k';
  /** Data rows read. */
  rows: number;
  /** Rows left out because RouteLLM lists them as contaminated. */
  contaminated: number;
}

/** The result of an import: the matrix as written and what was read and left out. */
export interface RoutellmImportResult {
  outDir: string;
  matrix: OutcomeMatrix;
  files: RoutellmFileSummary[];
  contaminatedDropped: number;
  notes: string[];
}

/** Reads the column -> model id map, validated. */
export function loadRoutellmModels(path = ROUTELLM_MODELS_PATH): Map<string, string> {
  const data: unknown = JSON.parse(readFileSync(path, 'utf8'));
  const validate = validatorFor<RoutellmModels>('routellm-models.schema.json');
  if (!validate(data)) throw new SetupError(`${path}: ${formatAjvErrors(validate.errors).join('; ')} (see schemas/routellm-models.schema.json)`);
  return new Map(Object.entries(data.models).flatMap(([col, id]) => (id ? [[col, id] as const] : [])));
}

function readText(file: string, what: string, kind: InputKind): string {
  checkInputSize(file, kind);
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new SetupError(`${file}: cannot read ${what}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message} (check the path and its permissions)`);
  }
}

/** Which data set a CSV holds, from its file name as RouteLLM names them. */
export function routellmDataset(file: string): { dataset: 'mmlu'; subject: string } | { dataset: 'gsm8k' } {
  const name = basename(file);
  const mmlu = /^mmlu_([a-z0-9_]+)\.csv$/.exec(name);
  if (mmlu) return { dataset: 'mmlu', subject: mmlu[1]! };
  if (/^gsm8k[a-z0-9_]*\.csv$/.test(name)) return { dataset: 'gsm8k' };
  throw new SetupError(`${file}: cannot tell the data set from the file name '${name}' (RouteLLM names them mmlu_<subject>.csv and gsm8k_responses.csv; rename the file)`);
}

/** The `eval_prompt`s of a contaminated_prompts.jsonl: the evaluation prompts RouteLLM found in its router training data. */
export function readContaminated(file: string): Set<string> {
  const out = new Set<string>();
  readText(file, 'the contaminated prompts', 'import_jsonl').split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (e) {
      throw new SetupError(`${file}:${i + 1}: bad JSON: ${(e as Error).message} (one JSON object per line, as RouteLLM ships it)`);
    }
    const p = (row as { eval_prompt?: unknown } | null)?.eval_prompt;
    if (typeof p !== 'string') throw new SetupError(`${file}:${i + 1}: no string eval_prompt (each line needs the contaminated evaluation prompt as eval_prompt)`);
    out.add(p);
  });
  return out;
}

/** Maps a CSV's header to the prompt, model and response columns; a missing or unknown column is a SetupError at line 1. */
function columnsOf(file: string, header: CsvRecord, models: Map<string, string>, needResponses: boolean): { prompt: number; model: number[]; response: number[] } {
  const cols = header.fields;
  const prompt = cols.indexOf('prompt');
  if (prompt < 0) throw new SetupError(`${file}:1: no 'prompt' column (columns: ${cols.join(', ')}); RouteLLM's CSVs start with prompt`);
  const names = [...models.keys()];
  const model = names.map((m) => {
    const i = cols.indexOf(m);
    if (i < 0) throw new SetupError(`${file}:1: missing model column '${m}' (every CSV needs one True/False column per model in ${ROUTELLM_MODELS_PATH}: ${names.join(', ')}; fix the file or the map)`);
    return i;
  });
  const response = names.map((m) => cols.indexOf(`${m}_response`));
  cols.forEach((c, i) => {
    if (i === prompt || model.includes(i) || response.includes(i)) return;
    throw new SetupError(`${file}:1: unknown column '${c}' (a model column needs its canonical id in ${ROUTELLM_MODELS_PATH}; add it there, or remove the column)`);
  });
  if (needResponses) {
    const missing = names.filter((_, k) => response[k]! < 0);
    if (missing.length) throw new SetupError(`${file}:1: missing response column '${missing[0]}_response' (GSM8K output tokens are counted from each model's answer text)`);
  }
  return { prompt, model, response };
}

/** Reads a True/False correctness cell as a score. */
function scoreOf(file: string, rec: CsvRecord, column: string, value: string): 0 | 1 {
  if (value === 'True') return 1;
  if (value === 'False') return 0;
  throw new SetupError(`${file}:${rec.line}: column '${column}' holds '${value.slice(0, 40)}', expected True or False (the model's answer was correct or not)`);
}

/** GSM8K has no subjects: equal-size clusters by prompt length in tokens (ties by id), shortest first. */
export function lengthClusters(tasks: readonly { id: string; inputTokens: number }[], k: number): Map<string, string> {
  const order = [...tasks].sort((a, b) => a.inputTokens - b.inputTokens || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const width = String(k).length;
  return new Map(order.map((t, i) => [t.id, `gsm8k-len-${String(Math.floor((i * k) / order.length) + 1).padStart(width, '0')}`]));
}

/** The LICENSE beside the CSVs (their directory or one up), or the one given. */
function findLicence(csvs: string[], given: string | undefined): string {
  if (given) {
    if (!existsSync(given)) throw new SetupError(`--licence ${given}: file not found (pass the data set's LICENSE file)`);
    return given;
  }
  const dirs = [...new Set(csvs.flatMap((c) => [dirname(c), dirname(dirname(c))]))];
  const found = dirs.map((d) => join(d, 'LICENSE')).find((p) => existsSync(p));
  if (!found) throw new SetupError(`no LICENSE beside ${csvs[0]} or one directory up (the licence must travel with the data: pass --licence FILE; RouteLLM's is Apache-2.0)`);
  return found;
}

/** Imports RouteLLM evaluation CSVs into a matrix workload at `out` (atomically: nothing is left behind on error). */
export async function importRoutellm(opts: RoutellmImportOptions): Promise<RoutellmImportResult> {
  if (opts.csvs.length === 0) throw new SetupError('bench import routellm: no CSV given (pass mmlu_<subject>.csv and/or gsm8k_responses.csv files)');
  const outDir = checkOutDir(opts.out);
  const csvs = opts.csvs.map((c) => resolve(c));
  const twice = csvs.find((c, i) => csvs.indexOf(c) !== i);
  if (twice) throw new SetupError(`${twice}: given twice (pass each CSV once)`);
  // Every size is checked before any file is read, so an oversized last file is refused at once.
  for (const c of csvs) checkInputSize(c, 'import_csv');
  const models = loadRoutellmModels();
  const ids = [...models.values()];
  const priceTable = opts.priceTable ?? loadPriceTable();
  for (const id of ids)
    if (!priceTable.rates(id)) throw new SetupError(`${ROUTELLM_MODELS_PATH}: model ${id} has no rates in ${priceTable.path ?? 'the price table'} (add it to runtime/data/prices.json with its source and as_of)`);
  const counter = opts.tokenCounter ?? createTiktokenCounter({ maxEntries: 0 });
  const notes: string[] = [];
  const contaminatedByDir = new Map<string, Set<string>>();
  const files: RoutellmFileSummary[] = [];
  const tasks: (MatrixTaskLine & { inputTokens: number; dataset: 'mmlu' | 'gsm8k' })[] = [];

  for (const file of csvs) {
    const kind = routellmDataset(file);
    const dir = dirname(file);
    if (!contaminatedByDir.has(dir)) {
      const path = join(dir, CONTAMINATED_FILE);
      if (existsSync(path)) contaminatedByDir.set(dir, readContaminated(path));
      else {
        contaminatedByDir.set(dir, new Set());
        notes.push(`no ${CONTAMINATED_FILE} beside ${file}: no prompt of that directory was left out as contaminated`);
      }
    }
    const contaminated = contaminatedByDir.get(dir)!;
    let records: CsvRecord[];
    try {
      records = parseCsv(readText(file, 'the CSV', 'import_csv'));
    } catch (e) {
      if (e instanceof CsvSyntaxError) throw new SetupError(`${file}:${e.line}: ${e.problem} (the file must be comma-separated with double-quoted fields, as RouteLLM writes it)`);
      throw e;
    }
    const header = records[0];
    if (!header) throw new SetupError(`${file}:1: empty CSV (expected a header: prompt, then one column per model)`);
    const cols = columnsOf(file, header, models, kind.dataset === 'gsm8k');
    const summary: RoutellmFileSummary = { file, dataset: kind.dataset, rows: 0, contaminated: 0 };
    records.slice(1).forEach((rec) => {
      if (rec.fields.length === 1 && rec.fields[0] === '') return;
      const row = summary.rows;
      summary.rows += 1;
      if (rec.fields.length !== header.fields.length)
        throw new SetupError(`${file}:${rec.line}: ${rec.fields.length} fields but the header has ${header.fields.length} (quote any field that holds a comma or newline)`);
      const prompt = rec.fields[cols.prompt]!;
      if (prompt.trim() === '') throw new SetupError(`${file}:${rec.line}: empty prompt (every row needs the prompt the models answered)`);
      // RouteLLM's evaluation leaves these out (found in its router training data); so does the matrix.
      if (contaminated.has(prompt)) {
        summary.contaminated += 1;
        return;
      }
      const inputTokens = counter.count(prompt);
      const cells: MatrixCellEntry[] = cols.model.map((ci, k) => ({
        score: scoreOf(file, rec, header.fields[ci]!, rec.fields[ci]!),
        in: inputTokens,
        out: kind.dataset === 'mmlu' ? MMLU_OUTPUT_TOKENS : counter.count(rec.fields[cols.response[k]!]!),
      }));
      const id = kind.dataset === 'mmlu' ? `${kind.subject}-${String(row).padStart(4, '0')}` : `gsm8k-${String(row).padStart(4, '0')}`;
      tasks.push({ id, cluster: kind.dataset === 'mmlu' ? kind.subject : 'gsm8k', text: prompt, cells, inputTokens, dataset: kind.dataset });
    });
    if (summary.rows === 0) throw new SetupError(`${file}:2: no data rows after the header (is it the right file?)`);
    files.push(summary);
  }

  const licence = readText(findLicence(csvs, opts.licence), 'the licence', 'import_licence');
  const gsm = tasks.filter((t) => t.dataset === 'gsm8k');
  if (gsm.length >= 2 * GSM8K_LENGTH_CLUSTERS) {
    const clusters = lengthClusters(gsm, GSM8K_LENGTH_CLUSTERS);
    for (const t of gsm) t.cluster = clusters.get(t.id)!;
  } else if (gsm.length > 0) notes.push(`only ${gsm.length} GSM8K tasks: one cluster 'gsm8k' (length clusters need ${2 * GSM8K_LENGTH_CLUSTERS} or more)`);

  const contaminatedDropped = files.reduce((s, f) => s + f.contaminated, 0);
  const datasets = [...new Set(files.map((f) => f.dataset))];
  const subjects = new Set(tasks.filter((t) => t.dataset === 'mmlu').map((t) => t.cluster)).size;
  const parts = datasets.map((d) => (d === 'mmlu' ? `MMLU (${tasks.filter((t) => t.dataset === 'mmlu').length} prompts, ${subjects} subjects as clusters)` : `GSM8K (${gsm.length} prompts, clustered by prompt length)`));
  const url = `${ROUTELLM_REPO}/tree/${opts.sourceCommit ?? 'main'}/routellm/evals`;
  const modelList = [...models.entries()].map(([col, id]) => `${col} (${id})`).join(' and ');
  const description =
    `Recorded outcomes of ${modelList} on ${parts.join(' and ')}, from RouteLLM's evaluation data; ` +
    `${contaminatedDropped} contaminated prompt(s) left out as RouteLLM does. Cost: o200k_base token counts at each model's list price (price table ${priceTable.version}).`;
  const readme = routellmReadme({ url, files, contaminatedDropped, modelList, sourceCommit: opts.sourceCommit });
  const matrix = await writeMatrixWorkload(
    outDir,
    {
      spec: { description, source: { name: `RouteLLM evaluation responses (${datasets.map((d) => d.toUpperCase()).join(', ')})`, licence: 'Apache-2.0', url, credit: ROUTELLM_CREDIT } },
      header: { outcome_matrix: 1, models: ids.map((id) => ({ id, price_source: 'price-table' as const })) },
      tasks: tasks.map(({ id, cluster, text, cells }) => ({ id, cluster, text, cells })),
      extra: { LICENSE: licence, 'README.md': readme },
    },
    priceTable,
  );
  return { outDir, matrix, files, contaminatedDropped, notes };
}

function routellmReadme(o: { url: string; files: RoutellmFileSummary[]; contaminatedDropped: number; modelList: string; sourceCommit: string | undefined }): string {
  const rows = o.files.reduce((s, f) => s + f.rows, 0);
  return [
    '# Recorded outcomes from RouteLLM (matrix workload)',
    '',
    `Imported by \`bench import routellm\` from ${o.files.length} CSV file(s) of RouteLLM's evaluation data: ${rows} prompts read, ${o.contaminatedDropped} left out as contaminated (listed in its contaminated_prompts.jsonl, as RouteLLM's own evaluation does).`,
    '',
    `- Origin: lm-sys/RouteLLM, \`routellm/evals/\`${o.sourceCommit ? `, commit ${o.sourceCommit}` : ''} (${o.url}).`,
    `- Models: ${o.modelList}; score 1 where RouteLLM marks the answer correct.`,
    '- Licence: Apache-2.0, in `LICENSE` beside this file (copied from that repository). Keep it with any copy of the data.',
    `- Credit: ${ROUTELLM_CREDIT}.`,
    '',
    "Cost is not in the data: each cell records input tokens (the prompt, counted with o200k_base via js-tiktoken, the project's tokenizer) and output tokens",
    `(GSM8K: the model's recorded answer; MMLU: ${MMLU_OUTPUT_TOKENS}, the answer letter), priced at each model's list price in runtime/data/prices.json (see its source and as_of).`,
    `MMLU subjects are the clusters; GSM8K, which has no subjects, is split into ${GSM8K_LENGTH_CLUSTERS} equal clusters by prompt length. See docs/decisions.md.`,
    '',
  ].join('\n');
}
