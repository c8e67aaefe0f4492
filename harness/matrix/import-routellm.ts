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
import { CsvSyntaxError, csvRecordsOf, type CsvRecord } from './csv-records.ts';
import { DigestTable, textDigest } from './digest-table.ts';
import type { MatrixSummary } from './matrix-summary.ts';
import { checkOutDir, openMatrixWorkload } from './write-matrix-workload.ts';

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
  /** Hears progress lines (at most one a second); `bench import` passes stderr. */
  progress?: (text: string) => void;
  /** The clock the progress rate is kept by (tests pass their own). */
  now?: () => number;
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
  /** Per-model figures of the matrix as written (the matrix itself is not kept: an import may not fit in memory). */
  summary: MatrixSummary;
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
  const sizes = csvs.map((c) => checkInputSize(c, 'import_csv') ?? 0);
  const models = loadRoutellmModels();
  const ids = [...models.values()];
  // The duplicate check keeps a row's outcomes as one bit per model in 32 bits.
  if (ids.length > 32) throw new SetupError(`${ROUTELLM_MODELS_PATH}: ${ids.length} models mapped; at most 32 (split the import)`);
  const priceTable = opts.priceTable ?? loadPriceTable();
  for (const id of ids)
    if (!priceTable.rates(id)) throw new SetupError(`${ROUTELLM_MODELS_PATH}: model ${id} has no rates in ${priceTable.path ?? 'the price table'} (add it to runtime/data/prices.json with its source and as_of)`);
  const counter = opts.tokenCounter ?? createTiktokenCounter({ maxEntries: 0 });
  const notes: string[] = [];
  const contaminatedByDir = new Map<string, Set<string>>();
  const files: RoutellmFileSummary[] = [];
  const writer = openMatrixWorkload(outDir);
  try {
    const totalBytes = sizes.reduce((a, b) => a + b, 0);
    const report = progressReporter(opts.progress, opts.now ?? Date.now, totalBytes);
    // Kept per task, in order: what GSM8K's length clusters need, not the task.
    const gsmTokens: number[] = [];
    const gsmIndex: number[] = [];
    let taskCount = 0;
    let mmluCount = 0;
    const subjects = new Set<string>();
    // Each prompt seen, by a 64-bit digest (not the text: a million prompts would not fit), to where it was first (file index * 2^32 + line) and its outcomes
    // (one bit per model): a prompt given again with other outcomes is refused.
    let seenPrompts: DigestTable | null = new DigestTable();
    let bytesBefore = 0;
    for (const [fileIndex, file] of csvs.entries()) {
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
      const summary: RoutellmFileSummary = { file, dataset: kind.dataset, rows: 0, contaminated: 0 };
      let header: CsvRecord | null = null;
      let cols: ReturnType<typeof columnsOf> | null = null;
      try {
        for await (const rec of csvRecordsOf(file, (n) => report(bytesBefore + n, taskCount))) {
          if (!header) {
            header = rec;
            cols = columnsOf(file, header, models, kind.dataset === 'gsm8k');
            continue;
          }
          if (rec.fields.length === 1 && rec.fields[0] === '') continue;
          const row = summary.rows;
          summary.rows += 1;
          if (rec.fields.length !== header.fields.length)
            throw new SetupError(`${file}:${rec.line}: ${rec.fields.length} fields but the header has ${header.fields.length} (quote any field that holds a comma or newline)`);
          const prompt = rec.fields[cols!.prompt]!;
          if (prompt.trim() === '') throw new SetupError(`${file}:${rec.line}: empty prompt (every row needs the prompt the models answered)`);
          const scores = cols!.model.map((ci) => scoreOf(file, rec, header!.fields[ci]!, rec.fields[ci]!));
          const [hi, lo] = textDigest(prompt);
          const bits = scores.reduce((acc: number, sc, k) => acc + sc * 2 ** k, 0);
          const seen = seenPrompts!.get(hi, lo);
          if (seen === null) seenPrompts!.set(hi, lo, [fileIndex * 2 ** 32 + rec.line, bits]);
          else if (seen[1] !== bits) {
            const [firstFile, firstLine] = [Math.floor(seen[0] / 2 ** 32), seen[0] % 2 ** 32];
            const written = (b: number) => scores.map((_, k) => Math.floor(b / 2 ** k) % 2).join('');
            throw new SetupError(
              `${file}:${rec.line}: this prompt is also on ${firstFile === fileIndex ? 'line ' : `${csvs[firstFile]}:`}${firstLine} with other outcomes (${written(seen[1])} there, ${written(bits)} here, per model column) ` +
                '(one task, one recorded outcome per model: remove one of the rows, or fix the one that is wrong)',
            );
          }
          // RouteLLM's evaluation leaves these out (found in its router training data); so does the matrix.
          if (contaminated.has(prompt)) {
            summary.contaminated += 1;
            continue;
          }
          const inputTokens = counter.count(prompt);
          const cells: MatrixCellEntry[] = cols!.model.map((_ci, k) => ({
            score: scores[k]!,
            in: inputTokens,
            out: kind.dataset === 'mmlu' ? MMLU_OUTPUT_TOKENS : counter.count(rec.fields[cols!.response[k]!]!),
          }));
          const id = kind.dataset === 'mmlu' ? `${kind.subject}-${String(row).padStart(4, '0')}` : `gsm8k-${String(row).padStart(4, '0')}`;
          await writer.task({ id, cluster: kind.dataset === 'mmlu' ? kind.subject : 'gsm8k', text: prompt, cells });
          if (kind.dataset === 'gsm8k') {
            gsmTokens.push(inputTokens);
            gsmIndex.push(taskCount);
          } else {
            mmluCount += 1;
            subjects.add(kind.subject);
          }
          taskCount += 1;
        }
      } catch (e) {
        if (e instanceof CsvSyntaxError)
          throw new SetupError(`${file}:${e.line}: ${e.problem} (${e.fix ?? 'the file must be comma-separated with double-quoted fields, as RouteLLM writes it'})`);
        if (e instanceof SetupError) throw e;
        throw new SetupError(`${file}: cannot read the CSV: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message} (check the path and its permissions)`);
      }
      if (!header) throw new SetupError(`${file}:1: empty CSV (expected a header: prompt, then one column per model)`);
      if (summary.rows === 0) throw new SetupError(`${file}:2: no data rows after the header (is it the right file?)`);
      files.push(summary);
      bytesBefore += sizes[fileIndex]!;
    }
    report(totalBytes, taskCount, true);
    // Let it go before the load-back, which keeps a table of its own: both at once were the peak.
    seenPrompts = null;

    const licence = readText(findLicence(csvs, opts.licence), 'the licence', 'import_licence');
    // GSM8K clusters by length need every GSM8K task's length: tasks are relabelled as they are copied into place.
    const clusterOf = new Map<number, string>();
    const gsm = gsmTokens.length;
    if (gsm >= 2 * GSM8K_LENGTH_CLUSTERS) {
      // Ids in row order, so ties break as they did when the ids were the tasks' own.
      const clusters = lengthClusters(gsmTokens.map((t, k) => ({ id: String(gsmIndex[k]!).padStart(12, '0'), inputTokens: t })), GSM8K_LENGTH_CLUSTERS);
      for (const [k, c] of clusters) clusterOf.set(Number(k), c);
    } else if (gsm > 0) notes.push(`only ${gsm} GSM8K tasks: one cluster 'gsm8k' (length clusters need ${2 * GSM8K_LENGTH_CLUSTERS} or more)`);

    const contaminatedDropped = files.reduce((s, f) => s + f.contaminated, 0);
    const datasets = [...new Set(files.map((f) => f.dataset))];
    const parts = datasets.map((d) => (d === 'mmlu' ? `MMLU (${mmluCount} prompts, ${subjects.size} subjects as clusters)` : `GSM8K (${gsm} prompts, clustered by prompt length)`));
    const url = `${ROUTELLM_REPO}/tree/${opts.sourceCommit ?? 'main'}/routellm/evals`;
    const modelList = [...models.entries()].map(([col, id]) => `${col} (${id})`).join(' and ');
    const description =
      `Recorded outcomes of ${modelList} on ${parts.join(' and ')}, from RouteLLM's evaluation data; ` +
      `${contaminatedDropped} contaminated prompt(s) left out as RouteLLM does. Cost: o200k_base token counts at each model's list price (price table ${priceTable.version}).`;
    const readme = routellmReadme({ url, files, contaminatedDropped, modelList, sourceCommit: opts.sourceCommit });
    const summary = await writer.finish(
      {
        spec: { description, source: { name: `RouteLLM evaluation responses (${datasets.map((d) => d.toUpperCase()).join(', ')})`, licence: 'Apache-2.0', url, credit: ROUTELLM_CREDIT } },
        header: { outcome_matrix: 1, models: ids.map((id) => ({ id, price_source: 'price-table' as const })) },
        extra: { LICENSE: licence, 'README.md': readme },
      },
      { priceTable, ...(clusterOf.size ? { relabel: (t: MatrixTaskLine, i: number) => (clusterOf.has(i) ? { ...t, cluster: clusterOf.get(i)! } : t) } : {}) },
    );
    return { outDir, summary, files, contaminatedDropped, notes };
  } catch (e) {
    await writer.abort();
    throw e;
  }
}

/** Reports progress through `sink` at most once a second (and once at the end): bytes read of the total, tasks so far. */
function progressReporter(sink: ((text: string) => void) | undefined, now: () => number, total: number): (bytes: number, tasks: number, last?: boolean) => void {
  let lastAt = now();
  const mib = (n: number) => (n / 1048576).toFixed(1);
  return (bytes, tasks, last = false) => {
    if (!sink) return;
    const t = now();
    if (!last && t - lastAt < 1000) return;
    lastAt = t;
    sink(`import: read ${mib(bytes)} of ${mib(total)} MiB (${total ? Math.floor((100 * bytes) / total) : 100}%), ${tasks} tasks\n`);
  };
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
