// `bench import swebench-leaderboard`: the swebench.com leaderboard's per-instance results (every model on the
// same tasks with the same scaffold) as a matrix workload. Its licence is CC BY-NC: users download it
// themselves and the project never ships it.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { MatrixCellEntry, MatrixModelEntry, MatrixTaskLine } from '../../schemas/types/outcome-matrix.ts';
import { SetupError } from '../errors.ts';
import { checkInputSize, defaultInputLimits, type InputKind } from '../input-limits.ts';
import { firstInvalidUtf8Offset, lineAndColumnOfByte } from '../workloads/utf8.ts';
import { firstDuplicateKey } from './duplicate-json-keys.ts';
import type { OutcomeMatrix } from './outcome-matrix.ts';
import { checkOutDir, writeMatrixWorkload } from './write-matrix-workload.ts';

/** Largest gap, in percentage points, allowed between an entry's headline resolved rate and its per-instance one. */
export const MAX_HEADLINE_GAP_PTS = 5;
/** Where the leaderboard comes from. */
export const SWEBENCH_SITE = 'https://www.swebench.com';

/** Options of `bench import swebench-leaderboard`. */
export interface SwebenchImportOptions {
  leaderboards: string;
  problems: string;
  /** Which leaderboard of the file (default bash-only). */
  leaderboard?: string;
  /** Entry names (or folders) to leave out. */
  exclude?: string[];
  /** Refuse the whole import (exit 2) instead of skipping an entry with a note. */
  strict?: boolean;
  out: string;
}

/** The result of an import. */
export interface SwebenchImportResult {
  outDir: string;
  matrix: OutcomeMatrix;
  /** Entries imported, as models. */
  imported: { name: string; id: string; perInstancePct: number; headlinePct: number | null }[];
  /** Entries left out, each with why. */
  skipped: { name: string; reason: string }[];
}

interface Problem {
  id: string;
  repo: string;
  text: string;
}

function readText(file: string, what: string, kind: InputKind): string {
  checkInputSize(file, kind);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    throw new SetupError(`${file}: cannot read ${what}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message} (check the path and its permissions)`);
  }
  // Decoding would turn bad bytes into U+FFFD without a word.
  const bad = firstInvalidUtf8Offset(bytes);
  if (bad !== null) {
    const { line, column } = lineAndColumnOfByte(bytes, bad);
    throw new SetupError(`${file}:${line}:${column}: not valid UTF-8 (byte offset ${bad}, byte 0x${bytes[bad]!.toString(16).padStart(2, '0')}); save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)`);
  }
  return bytes.toString('utf8');
}

/** The 1-based line of a character offset. */
function lineOfOffset(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line += 1;
  return line;
}

/** Parses a whole JSON file; a syntax error names the line. */
function parseJsonFile(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const msg = (e as Error).message;
    const pos = /position (\d+)/.exec(msg);
    const line = pos ? lineOfOffset(text, Number(pos[1])) : null;
    throw new SetupError(`${file}${line ? `:${line}` : ''}: bad JSON: ${msg} (download leaderboards.json again, or fix the syntax there)`);
  }
}

/** Reads the problems JSONL (instance_id, repo, problem_statement per line). */
export function readProblems(file: string): Problem[] {
  const seen = new Map<string, number>();
  const out: Problem[] = [];
  readText(file, 'the problems file', 'import_jsonl')
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      const at = `${file}:${i + 1}`;
      let row: Record<string, unknown>;
      try {
        row = JSON.parse(line) as Record<string, unknown>;
      } catch (e) {
        throw new SetupError(`${at}: bad JSON: ${(e as Error).message} (one JSON object per line: instance_id, repo, problem_statement)`);
      }
      for (const k of ['instance_id', 'repo', 'problem_statement'])
        if (typeof row?.[k] !== 'string' || (k !== 'problem_statement' && row[k] === ''))
          throw new SetupError(`${at}: no string '${k}' (each line needs instance_id, repo and problem_statement, as the SWE-bench dataset has them)`);
      const id = row.instance_id as string;
      const first = seen.get(id);
      if (first !== undefined) throw new SetupError(`${at}: instance '${id}' already on line ${first} (give each instance once)`);
      seen.set(id, i + 1);
      out.push({ id, repo: row.repo as string, text: row.problem_statement as string });
    });
  if (out.length === 0) throw new SetupError(`${file}: no problems (expected one JSON object per line with instance_id, repo, problem_statement)`);
  return out;
}

/** Where an entry's per-instance results are in leaderboards.json: an object keyed by instance id. */
const PER_INSTANCE_PATH = /^leaderboards\[\d+\]\.results\[\d+\]\.per_instance_details$/;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A model id from the entry's folder (or name): the matrix id pattern allows letters, digits and . _ : / + -. */
export function modelIdOf(folder: string): string {
  const id = folder.replace(/[^A-Za-z0-9._:/+-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  return id || 'model';
}

/** Imports one leaderboard of a swebench.com leaderboards.json into a matrix workload at `out`, atomically. */
export async function importSwebenchLeaderboard(opts: SwebenchImportOptions): Promise<SwebenchImportResult> {
  const outDir = checkOutDir(opts.out);
  const lbFile = resolve(opts.leaderboards);
  const problemsFile = resolve(opts.problems);
  const wanted = opts.leaderboard ?? 'bash-only';
  checkInputSize(lbFile, 'import_json');
  checkInputSize(problemsFile, 'import_jsonl');
  const lbText = readText(lbFile, 'the leaderboards file', 'import_json');
  const data = parseJsonFile(lbFile, lbText);
  // JSON.parse keeps the last of an instance given twice: one of its two results would vanish without a word.
  const twice = firstDuplicateKey(lbText, (path) => PER_INSTANCE_PATH.test(path));
  if (twice)
    throw new SetupError(
      `${lbFile}:${twice.line}: ${twice.path}: instance '${twice.key}' given twice (first on line ${twice.firstLine}); a JSON reader keeps only the last, so one result would be lost (remove the wrong one)`,
    );
  const boards = isObj(data) ? data.leaderboards : undefined;
  if (!Array.isArray(boards)) throw new SetupError(`${lbFile}: no "leaderboards" array at the top level (expected {"leaderboards":[{"name":...,"results":[...]}]}, swebench.com's data/leaderboards.json)`);
  const bi = boards.findIndex((b) => isObj(b) && b.name === wanted);
  if (bi < 0) throw new SetupError(`${lbFile}: no leaderboard named '${wanted}' (available: ${boards.map((b) => (isObj(b) ? String(b.name) : '?')).join(', ')}; pass --leaderboard NAME)`);
  const results = (boards[bi] as Record<string, unknown>).results;
  if (!Array.isArray(results)) throw new SetupError(`${lbFile}: leaderboards[${bi}] ('${wanted}') has no "results" array`);
  const problems = readProblems(problemsFile);
  const known = new Set(problems.map((p) => p.id));
  const exclude = new Set(opts.exclude ?? []);
  const bounds = defaultInputLimits().import_values;

  const models: MatrixModelEntry[] = [];
  const columns: Map<string, MatrixCellEntry>[] = [];
  const imported: SwebenchImportResult['imported'] = [];
  const skipped: SwebenchImportResult['skipped'] = [];
  const skip = (name: string, reason: string) => {
    if (opts.strict) throw new SetupError(`${lbFile}: entry '${name}': ${reason} (--strict refuses the import; drop --strict to skip the entry with a note)`);
    skipped.push({ name, reason });
  };
  const ids = new Map<string, string>();
  results.forEach((entry, ri) => {
    const where = `${lbFile}: leaderboards[${bi}].results[${ri}]`;
    if (!isObj(entry)) throw new SetupError(`${where}: not an object (each result is {"name","folder","date","resolved","per_instance_details"})`);
    const name = entry.name;
    const folder = entry.folder;
    if (typeof name !== 'string' || name === '' || typeof folder !== 'string' || folder === '')
      throw new SetupError(`${where}: missing model: no ${typeof name !== 'string' || name === '' ? '"name"' : '"folder"'} (each entry names its model by name and folder; fix or remove the entry)`);
    if (exclude.has(name) || exclude.has(folder)) return void skipped.push({ name, reason: 'excluded by --exclude' });
    const details = entry.per_instance_details;
    if (!isObj(details) || Object.keys(details).length === 0) return skip(name, 'no per_instance_details (only a headline figure), so it has no cells');
    const cells = new Map<string, MatrixCellEntry>();
    let solved = 0;
    for (const [iid, d] of Object.entries(details)) {
      const at = `${where} ('${name}').per_instance_details['${iid}']`;
      if (!known.has(iid)) throw new SetupError(`${at}: unknown instance (not in ${problemsFile}; pass the problems file of the full benchmark, e.g. SWE-bench Verified's 500)`);
      if (!isObj(d) || typeof d.resolved !== 'boolean') throw new SetupError(`${at}: "resolved" must be true or false`);
      if (typeof d.cost !== 'number' || !Number.isFinite(d.cost) || d.cost < 0) throw new SetupError(`${at}: "cost" must be a non-negative number of USD (got ${JSON.stringify(d.cost)})`);
      if (d.cost > bounds.max_cost_usd)
        throw new SetupError(`${at}: "cost" ${d.cost} USD is above import_values.max_cost_usd (${bounds.max_cost_usd}) in harness/data/input-limits.json (a corrupt entry: fix or --exclude it; raise the bound there only for a genuine run)`);
      if (d.api_calls !== undefined && (typeof d.api_calls !== 'number' || !Number.isInteger(d.api_calls) || d.api_calls < 0))
        throw new SetupError(`${at}: "api_calls" must be a whole number >= 0 (got ${JSON.stringify(d.api_calls)})`);
      if (d.api_calls !== undefined && d.api_calls > bounds.max_api_calls)
        throw new SetupError(`${at}: "api_calls" ${d.api_calls} is above import_values.max_api_calls (${bounds.max_api_calls}) in harness/data/input-limits.json (a corrupt entry: fix or --exclude it; raise the bound there only for a genuine run)`);
      if (d.resolved) solved += 1;
      cells.set(iid, { score: d.resolved ? 1 : 0, usd: String(d.cost), ...(d.api_calls !== undefined ? { calls: d.api_calls } : {}) });
    }
    const missing = problems.find((p) => !cells.has(p.id));
    if (missing)
      throw new SetupError(
        `${where} ('${name}'): missing cell: no per_instance_details for instance '${missing.id}' (${problems.length - cells.size} of ${problems.length} missing; leave the entry out with --exclude '${name}', or pass the problems file it was run on)`,
      );
    const perInstancePct = (100 * solved) / problems.length;
    const headline = typeof entry.resolved === 'number' && Number.isFinite(entry.resolved) ? entry.resolved : null;
    if (headline === null) return skip(name, 'no numeric headline "resolved" to check its per-instance results against');
    if (Math.abs(perInstancePct - headline) > MAX_HEADLINE_GAP_PTS)
      return skip(name, `per-instance resolved rate ${perInstancePct.toFixed(1)}% differs from its headline ${headline}% by more than ${MAX_HEADLINE_GAP_PTS} points, so its details do not describe the run it reports`);
    const id = modelIdOf(folder);
    const clash = ids.get(id);
    if (clash !== undefined) throw new SetupError(`${where} ('${name}'): model id '${id}' (from folder '${folder}') repeats entry '${clash}' (each entry needs its own folder; --exclude one of them)`);
    ids.set(id, name);
    models.push({ id, price_source: 'recorded', label: name });
    columns.push(cells);
    imported.push({ name, id, perInstancePct, headlinePct: headline });
  });
  if (models.length === 0) throw new SetupError(`${lbFile}: no entry of '${wanted}' could be imported (${skipped.map((s) => `${s.name}: ${s.reason}`).join('; ') || 'no results'})`);

  const tasks: MatrixTaskLine[] = problems.map((p) => ({ id: p.id, cluster: p.repo, text: p.text, cells: columns.map((c) => c.get(p.id)!) }));
  const repos = new Set(problems.map((p) => p.repo)).size;
  const matrix = await writeMatrixWorkload(outDir, {
    spec: {
      description: `Recorded outcomes of ${models.length} model(s) on the ${problems.length} tasks of the SWE-bench '${wanted}' leaderboard (${repos} repositories as clusters); cost is each run's recorded USD.`,
      source: { name: `SWE-bench leaderboard '${wanted}' (swebench.com data/leaderboards.json)`, licence: 'CC-BY-NC-4.0', url: SWEBENCH_SITE, credit: 'SWE-bench (Jimenez et al., 2024) and the leaderboard submitters' },
    },
    header: { outcome_matrix: 1, models },
    tasks,
    extra: {
      'README.md': [
        `# SWE-bench '${wanted}' leaderboard outcomes (matrix workload)`,
        '',
        `Imported by \`bench import swebench-leaderboard\` from ${lbFile} and ${problemsFile}.`,
        `${models.length} entries imported; ${skipped.length} left out${skipped.length ? `: ${skipped.map((s) => `${s.name} (${s.reason})`).join('; ')}` : ''}.`,
        '',
        `Licence: the leaderboard data is CC BY-NC 4.0 (${SWEBENCH_SITE}); do not redistribute it commercially. Metis bench never ships it.`,
        'Credit: SWE-bench (Jimenez et al., 2024, "SWE-bench: Can Language Models Resolve Real-World GitHub Issues?") and each leaderboard submitter.',
        '',
      ].join('\n'),
    },
  });
  return { outDir, matrix, imported, skipped };
}
