import { isUtf8 } from 'node:buffer';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve, sep } from 'node:path';
import { cachedParse } from '../../runtime/core/parsed-file-cache.ts';
import { validatorFor } from '../../runtime/core/schemas.ts';
import { DataFileError, loadYamlValidated } from '../../runtime/core/yaml-document.ts';
import { SetupError } from '../errors.ts';
import { defaultInputLimits, refuseOverLimit } from '../input-limits.ts';
import type { Workload, WorkloadSpec } from './workload.ts';
import { firstInvalidUtf8Offset, lineAndColumnOfByte } from './utf8.ts';
import { kindOfText, workloadKind, type WorkloadKind } from './workload-kind.ts';

/** Whether `p` is a directory: one stat, no exception when it does not exist (an unreadable path is no directory). */
function isDir(p: string): boolean {
  try {
    return statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** Loads and validates one workload directory; every problem is a SetupError naming the file (and line). */
export function loadWorkload(dir: string): Workload {
  return loadWorkloadOfKind(dir, null);
}

/**
 * `join(dir, name)` for a `dir` that `resolve` gave (absolute, normalized) and a plain entry name: the same
 * string without normalizing it again, which costs microseconds a call in a cold process (ten a workload).
 */
function inDir(dir: string, name: string): string {
  return dir.endsWith(sep) ? dir + name : dir + sep + name;
}

/** A workload.yaml as the loader needs it: its size and, when within the size limit and readable, its bytes. */
interface WorkloadFile {
  file: string;
  size: number;
  bytes: Buffer | null;
}

/**
 * The entries of a workload's directory its load reads, each named once: workloadInputs lists them for a result
 * kept against their state, so a path the loader reads is a path that result depends on.
 */
const PART = { file: 'workload.yaml', workspace: 'workspace', check: 'check', sim: 'sim.yaml' } as const;

/**
 * `dir`'s workload.yaml, stat'ed and read once for its kind, its encoding check and its parse (each read it
 * afresh: three reads and four stats per workload, most of what the true oracle's workloads cost a cold
 * analyze); null when there is none. An oversized file is not read: the loader refuses it by its size.
 */
function readWorkloadFile(dir: string): WorkloadFile | null {
  const file = inDir(dir, PART.file);
  let size: number;
  try {
    const seen = statSync(file, { throwIfNoEntry: false });
    if (seen === undefined) return null;
    size = seen.size;
  } catch {
    return null;
  }
  if (size > defaultInputLimits().limits.workload_file.max_bytes) return { file, size, bytes: null };
  try {
    return { file, size, bytes: readFileSync(file) };
  } catch {
    // The loader reads it again, and that read's error is the one reported.
    return { file, size, bytes: null };
  }
}

/**
 * `loadWorkload`, given the kind its workload.yaml declares when the caller has read it already (null: read it
 * here), and the file when the caller has read that too.
 */
function loadWorkloadOfKind(dir: string, known: WorkloadKind | null, read: WorkloadFile | null = readWorkloadFile(resolve(dir))): Workload {
  const abs = resolve(dir);
  const file = inDir(abs, PART.file);
  if (read === null) throw new SetupError(`${file}: no workload.yaml in ${abs}`);
  refuseOverLimit(file, read.size, 'workload_file');
  const bytes = read.bytes ?? readFileSync(file);
  assertUtf8(file, bytes);
  if ((known ?? kindOfText(file, bytes.toString('utf8'))) === 'matrix')
    throw new SetupError(`${file}: kind: matrix holds recorded outcomes, not an agent workload (bench validate and bench list read it; the matrix protocol judges it)`);
  let spec: WorkloadSpec;
  try {
    spec = cachedParse('workload', file, () => loadYamlValidated<WorkloadSpec>(file, validatorFor<WorkloadSpec>('workload.schema.json'), bytes.toString('utf8')));
  } catch (e) {
    if (e instanceof DataFileError) throw new SetupError(e.message);
    throw e;
  }
  if (spec.name !== basename(abs))
    throw new SetupError(`${file}: name '${spec.name}' does not match its directory '${basename(abs)}' (rename one of them)`);
  const workspaceDir = inDir(abs, PART.workspace);
  if (!isDir(workspaceDir)) throw new SetupError(`${abs}: missing workspace/ directory (the fixture the agent works in)`);
  const checkDir = inDir(abs, PART.check);
  const hasCheck = isDir(checkDir);
  const sim = inDir(abs, PART.sim);
  if (spec.evaluate?.check && !hasCheck) throw new SetupError(`${file}: evaluate.check is set but ${checkDir} does not exist`);
  return { spec, dir: abs, workspaceDir, checkDir: hasCheck ? checkDir : null, simScriptPath: existsSync(sim) ? sim : null };
}

/** Refuses `bytes` (the file's) when they are not UTF-8 (a YAML reader would silently turn bad bytes into U+FFFD). */
function assertUtf8(file: string, bytes: Buffer): void {
  // Node's check (simdutf) answers in microseconds; the byte scan, which finds where it goes wrong, runs on a bad file only.
  if (isUtf8(bytes)) return;
  const at = firstInvalidUtf8Offset(bytes);
  if (at === null) return;
  const { line, column } = lineAndColumnOfByte(bytes, at);
  const hex = bytes[at]!.toString(16).padStart(2, '0');
  throw new SetupError(`${file}:${line}:${column}: not valid UTF-8 (byte offset ${at}, byte 0x${hex}); save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)`);
}

/** Every subdirectory of `root` that holds a workload.yaml, of any kind, sorted by name. */
export function allWorkloadDirs(root: string): string[] {
  const abs = resolve(root);
  if (!isDir(abs)) throw new SetupError(`${abs}: workloads directory not found (pass --workloads-dir)`);
  return readdirSync(abs)
    .filter((n) => existsSync(join(abs, n, 'workload.yaml')))
    .sort()
    .map((n) => join(abs, n));
}

/** The agent workloads' directories under `root` (kind: matrix ones are left out: they never run through the agent loop). */
export function workloadDirs(root: string): string[] {
  return allWorkloadDirs(root).filter((d) => workloadKind(d) === 'agent');
}

/** The matrix workloads' directories under `root` (workload.yaml with kind: matrix), sorted by name. */
export function matrixWorkloadDirs(root: string): string[] {
  return allWorkloadDirs(root).filter((d) => workloadKind(d) === 'matrix');
}

/** Every agent workload under `root`, loaded and validated. */
export function discoverWorkloads(root: string): Workload[] {
  return workloadDirs(root).map((d) => loadWorkloadOfKind(d, 'agent'));
}

/**
 * The paths whose state decides what loading the workload in `dir` gives, sim script included: its workload.yaml,
 * workspace/, check/ and sim.yaml (any of which may be missing). The schemas and input limits it is checked
 * against are shipped files, fixed for a build. A result kept against these paths' sizes and mtimes is what a
 * load would give again while they hold.
 */
export function workloadInputs(dir: string): string[] {
  return Object.values(PART).map((name) => inDir(dir, name));
}

/** Agent workloads under one folder, found by name (workloadFinder). */
export interface WorkloadFinder {
  /** The directory the workload of that name would be in, or null when the folder lists no entry of that name (a path is never one). */
  dirOf(name: string): string | null;
  /** The agent workload of that name, loaded and validated, as discoverWorkloads would give it; null when it gives none. */
  find(name: string): Workload | null;
}

/**
 * A lookup of agent workloads under `root` by name: the one `discoverWorkloads(root)` would give that name,
 * loaded and validated, or null when it gives none. Reads `root`'s listing once and, per name asked, that
 * workload's directory only; a broken workload that is never asked for is never read.
 */
export function workloadFinder(root: string): WorkloadFinder {
  const abs = resolve(root);
  if (!isDir(abs)) throw new SetupError(`${abs}: workloads directory not found (pass --workloads-dir)`);
  // Names as the directory spells them: a name is found only as discoverWorkloads would list it (never a path).
  const entries = new Set(readdirSync(abs));
  const dirOf = (name: string) => (entries.has(name) ? inDir(abs, name) : null);
  return {
    dirOf,
    find(name) {
      const dir = dirOf(name);
      if (dir === null) return null;
      // One read of workload.yaml serves the kind check and the load (an oversized one is agent: the loader refuses it).
      const read = readWorkloadFile(dir);
      if (read === null || (read.bytes !== null && kindOfText(read.file, read.bytes.toString('utf8')) !== 'agent')) return null;
      return loadWorkloadOfKind(dir, 'agent', read);
    },
  };
}

/** How `selectWorkloads` picks; `notes` receives what the user should know about the selection (a name given twice). */
export interface SelectWorkloadsOptions {
  names: string[];
  includeMarginal: boolean;
  notes?: string[];
}

/**
 * Selection rules of benchmark.md §3.1/§4.1: names bypass the signal filter; marginal ones need
 * the flag. A name given twice runs once (its reps come from --seed-passes), with a note.
 */
export function selectWorkloads(all: Workload[], opts: SelectWorkloadsOptions): Workload[] {
  if (opts.names.length > 0) {
    const names = [...new Set(opts.names)];
    const repeated = [...new Set(opts.names.filter((n, i) => opts.names.indexOf(n) !== i))];
    if (repeated.length > 0) opts.notes?.push(`--workload ${repeated.join(', ')} given more than once: each runs once (use --seed-passes N for more reps)`);
    return names.map((n) => {
      const w = all.find((x) => x.spec.name === n);
      if (!w) throw new SetupError(`unknown workload '${n}'; available: ${all.map((x) => x.spec.name).join(', ') || '(none)'}`);
      return w;
    });
  }
  const picked = all.filter((w) => opts.includeMarginal || (w.spec.signal_strength ?? 'high') === 'high');
  if (picked.length === 0) {
    // With --include-marginal every workload is picked, so nothing picked means there are none at all.
    if (opts.includeMarginal) throw new SetupError('no workload to run: the workloads directory holds no workload.yaml. Pass --workloads-dir DIR, or add one (see workloads/README.md).');
    const marginal = all.filter((w) => w.spec.signal_strength === 'marginal').length;
    throw new SetupError(
      `no high-signal workload to run (${marginal} marginal workload(s) found). ` +
        'Pass --include-marginal to run them, or --workload NAME to run one by name (see workloads/README.md: signal strength).',
    );
  }
  return picked;
}
