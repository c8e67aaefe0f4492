import { join, resolve } from 'node:path';
import { isoFromUs } from '../../runtime/core/clock.ts';
import type { CliIO } from '../io/cli-io.ts';
import { SetupError } from '../errors.ts';
import type { RunSuiteOptions, RunSuiteResult } from '../suite/run-suite-options.ts';

/** A pattern-store fingerprint version (pattern-store.md §16). */
export type FingerprintVersion = 'v1' | 'v2';

/** The embedder `bench compare v1 v2` gives the v2 arm unless `--embedding-provider` says otherwise. */
export { DEFAULT_EMBEDDING_PROVIDER } from '../runs/run-pattern-store.ts';

/** The pattern-store choice of one arm, as `runSuite` takes it. */
export interface FingerprintArmOptions {
  fingerprintVersion: FingerprintVersion;
  embeddingProvider: string | null;
}

/** `runSuite` or a stand-in with its signature (tests inject one). */
export type RunSuiteFn = (opts: RunSuiteOptions, io: CliIO) => Promise<RunSuiteResult>;

/** The run options both arms share; the protocol and the output paths are set per arm. */
export type SharedRunOptions = Omit<RunSuiteOptions, 'protocol' | 'dbPath' | 'jsonPath' | 'patternsDbPath'>;

/** What `runFingerprintAb` needs. */
export interface FingerprintAbOptions {
  run: SharedRunOptions;
  /** Parent of the `compare-<ts>/` folder, relative to io.cwd or absolute. */
  outDir: string;
  /** The v2 arm's embedder id; the v1 arm gets none. */
  embeddingProvider: string;
  /** When the comparison started, for the folder name; read at the edge by the caller. */
  nowUs: number;
}

/** The two finished arms and the folder that holds their DBs and reports. */
export interface FingerprintAbResult {
  dir: string;
  v1: RunSuiteResult;
  v2: RunSuiteResult;
}

/** One arm's run options: the shared ones plus its fingerprint version, typed so a mismatch with runSuite's fields fails to compile. */
export function withFingerprint(base: RunSuiteOptions, arm: FingerprintArmOptions): RunSuiteOptions & FingerprintArmOptions {
  return { ...base, ...arm };
}

/** `compare-<UTC timestamp>` under outDir, like `bench run`'s default DB name. */
export function abRunDir(cwd: string, outDir: string, nowUs: number): string {
  const ts = isoFromUs(nowUs).slice(0, 19).replace(/:/g, '-');
  return resolve(cwd, outDir, `compare-${ts}Z`);
}

/**
 * `bench compare v1 v2` (spec §8.4): the A3 protocol twice with the same seeds and workloads, once per
 * fingerprint version, each with its own trace DB and patterns DB, so neither arm learns from the other.
 */
export async function runFingerprintAb(opts: FingerprintAbOptions, io: CliIO, runSuiteFn: RunSuiteFn): Promise<FingerprintAbResult> {
  const dir = abRunDir(io.cwd, opts.outDir, opts.nowUs);
  const runArm = async (version: FingerprintVersion): Promise<RunSuiteResult> => {
    const options = withFingerprint(
      { ...opts.run, protocol: 'a3', dbPath: join(dir, `${version}.db`), patternsDbPath: join(dir, `${version}.patterns.db`), jsonPath: join(dir, `${version}.json`) },
      { fingerprintVersion: version, embeddingProvider: version === 'v2' ? opts.embeddingProvider : null },
    );
    const result = await runSuiteFn(options, io);
    // A runner that ignored the option would make this a v1-vs-v1 comparison that looks like an A/B.
    const got = result.report.provenance.fingerprint_version;
    if (got !== version) throw new SetupError(`${result.jsonPath}: asked runSuite for fingerprint ${version} but the report says ${got}; the fingerprintVersion run option is not wired into the runner`);
    return result;
  };
  const v1 = await runArm('v1');
  const v2 = await runArm('v2');
  return { dir, v1, v2 };
}
