// `bench compare --arm LABEL=routing.yaml --arm LABEL=routing.yaml`: two routing configurations, each
// run through the A3 protocol on the same seeds and workloads, then compared as `compare v1 v2` is.
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readRoutingFile } from '../../runtime/routing/load-routing-config.ts';
import type { CliIO } from '../io/cli-io.ts';
import { SetupError } from '../errors.ts';
import type { RunSuiteResult } from '../suite/run-suite-options.ts';
import { abRunDir, type RunSuiteFn, type SharedRunOptions } from './fingerprint-ab.ts';

/** One arm: its column label and the routing.yaml it runs under (absolute path). */
export interface ConfigArm {
  label: string;
  path: string;
}

/** An arm label: it names files in the run folder, so it stays a plain word. */
const LABEL = /^[A-Za-z0-9_.-]+$/;

/** Parses one `--arm LABEL=PATH`; a malformed spec is a SetupError that shows the expected form. */
export function parseArmSpec(spec: string, cwd: string): ConfigArm {
  const eq = spec.indexOf('=');
  const label = eq < 0 ? '' : spec.slice(0, eq);
  const path = eq < 0 ? '' : spec.slice(eq + 1);
  if (!LABEL.test(label) || !path)
    throw new SetupError(`--arm '${spec}': expected LABEL=PATH, a label of letters, digits, '_', '.' or '-' and a routing.yaml path (e.g. --arm weighted=configs/weighted.yaml)`);
  return { label, path: resolve(cwd, path) };
}

/**
 * Parses and checks the `--arm` specs: exactly two, distinct labels, each file present and a valid
 * routing.yaml (a DataFileError names its file, line and column). Nothing runs before all of this holds.
 */
export function loadConfigArms(specs: readonly string[], cwd: string): [ConfigArm, ConfigArm] {
  if (specs.length !== 2) throw new SetupError(`--arm given ${specs.length} time(s): a comparison needs exactly two (--arm A=a.yaml --arm B=b.yaml)`);
  const arms = specs.map((s) => parseArmSpec(s, cwd)) as [ConfigArm, ConfigArm];
  if (arms[0].label === arms[1].label) throw new SetupError(`--arm: both arms are labelled '${arms[0].label}'; give them different labels`);
  for (const arm of arms) {
    if (!existsSync(arm.path) || !statSync(arm.path).isFile()) throw new SetupError(`--arm ${arm.label}: ${arm.path} does not exist or is not a file (give the path of a routing.yaml)`);
    readRoutingFile(arm.path);
  }
  return arms;
}

/** What `runConfigAb` needs. */
export interface ConfigAbOptions {
  run: SharedRunOptions;
  arms: readonly [ConfigArm, ConfigArm];
  /** Parent of the `compare-<ts>/` folder, relative to io.cwd or absolute. */
  outDir: string;
  nowUs: number;
}

/** The two finished arms, in the order given, and the folder that holds their DBs and reports. */
export interface ConfigAbResult {
  dir: string;
  arms: [{ arm: ConfigArm; result: RunSuiteResult }, { arm: ConfigArm; result: RunSuiteResult }];
}

/**
 * Runs A3 once per arm with the arm's file as the run's global routing config, the same seeds and
 * workloads for both, each with its own trace DB and patterns DB (`<label>.db`, `<label>.patterns.db`),
 * so neither arm learns from the other.
 */
export async function runConfigAb(opts: ConfigAbOptions, io: CliIO, runSuiteFn: RunSuiteFn): Promise<ConfigAbResult> {
  const dir = abRunDir(io.cwd, opts.outDir, opts.nowUs);
  const runArm = async (arm: ConfigArm) => ({
    arm,
    result: await runSuiteFn(
      {
        ...opts.run,
        protocol: 'a3',
        routingConfigPath: arm.path,
        dbPath: join(dir, `${arm.label}.db`),
        patternsDbPath: join(dir, `${arm.label}.patterns.db`),
        jsonPath: join(dir, `${arm.label}.json`),
      },
      io,
    ),
  });
  const first = await runArm(opts.arms[0]);
  const second = await runArm(opts.arms[1]);
  return { dir, arms: [first, second] };
}
