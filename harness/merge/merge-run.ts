import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Provenance } from '../../schemas/types/report.ts';
import { SetupError } from '../errors.ts';
import { passesOf } from '../jobs/passes.ts';
import { checkMergeInputs, readMergeInput, type MergeInput } from './merge-inputs.ts';
import { checkCoverage, checkNoSharedReps, checkShard } from './check-shard.ts';
import { mergePatternStores } from './merge-patterns.ts';
import { mergeTrace } from './merge-trace.ts';
import { sealModeText } from '../runs/run-seal.ts';

/** What `bench merge` wrote. */
export interface MergeResult {
  outPath: string;
  patternsPath: string | null;
  runId: string;
  passes: string[];
  mergedFrom: string[];
  reps: number;
  /** How the inputs' seals were checked and the output's written: keyed, or tamper-evident only. */
  seal: NonNullable<Provenance['merge_seal']>;
}

/** What `bench merge` is given besides the paths. */
export interface MergeOptions {
  /** METIS_SEAL_KEY's bytes (harness/runs/run-seal.ts sealKeyFrom), or null: seals are then plain SHA-256. */
  sealKey: Buffer | null;
}

/** `A,B 2/3` labels of the inputs, for provenance.merged_from. */
function label(i: MergeInput): string {
  return `${i.passes.join(',')} ${i.shard.index}/${i.shard.count}`;
}

/**
 * `bench merge DB... --out DB`: checks the inputs are the complete shards of one run (exit 2 naming
 * what differs, overlaps or is missing), then writes one trace DB holding every rep and one pattern
 * store (`<out>.patterns.db`) as one machine would have left it. Refuses an existing --out.
 */
export function mergeRun(paths: readonly string[], outPath: string, o: MergeOptions): MergeResult {
  if (existsSync(outPath)) throw new SetupError(`${outPath}: already exists; bench merge writes a new DB (pass another --out)`);
  const inputs: MergeInput[] = [];
  try {
    for (const p of paths) {
      if (inputs.some((i) => i.path === p)) throw new SetupError(`${p}: given twice`);
      inputs.push(readMergeInput(p));
    }
    const covered = checkMergeInputs(inputs);
    // Each shard's rows are as it finished them (its seal) and exactly its planned jobs; no rep is in two inputs.
    for (const i of inputs) checkShard(i, o.sealKey);
    checkNoSharedReps(inputs);
    checkCoverage(inputs, covered);
    const first = inputs[0]!;
    const all = passesOf(first.provenance.protocol).map((p) => p.name);
    const patternsPath = outPath.replace(/\.db$/, '') + '.patterns.db';
    if (existsSync(patternsPath)) throw new SetupError(`${patternsPath}: already exists; bench merge writes a new pattern store beside --out`);
    mkdirSync(dirname(outPath), { recursive: true });
    const storesUsed = mergePatternStores(patternsPath, inputs);
    const iso = (f: (p: Provenance) => string, pick: (a: string, b: string) => boolean) => inputs.map((i) => f(i.provenance)).reduce((a, b) => (pick(a, b) ? a : b));
    const provenance: Provenance = {
      ...first.provenance,
      started_at: iso((p) => p.started_at, (a, b) => a <= b),
      ended_at: iso((p) => p.ended_at, (a, b) => a >= b),
      metis_dirty: inputs.some((i) => i.provenance.metis_dirty === true) ? true : inputs.every((i) => i.provenance.metis_dirty === false) ? false : null,
      db_path: outPath,
      patterns_db_path: storesUsed ? patternsPath : null,
      shard: null,
      merged_from: inputs.map(label),
      merge_seal: sealModeText(o.sealKey),
    };
    if (covered.length < all.length) provenance.passes = covered;
    else delete provenance.passes;
    const out = new Database(outPath);
    try {
      out.pragma('journal_mode = WAL');
      mergeTrace(out, inputs, covered, provenance, { key: o.sealKey, patternsPath: storesUsed ? patternsPath : null });
      const reps = (out.prepare('SELECT count(*) AS n FROM workload_runs').get() as { n: number }).n;
      return { outPath, patternsPath: storesUsed ? patternsPath : null, runId: first.runId, passes: covered, mergedFrom: provenance.merged_from!, reps, seal: provenance.merge_seal! };
    } catch (e) {
      out.close();
      rmSync(outPath, { force: true });
      throw e;
    } finally {
      if (out.open) out.close();
    }
  } finally {
    for (const i of inputs) i.db.close();
  }
}
