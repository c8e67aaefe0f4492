import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { validatorFor } from '../../runtime/core/schemas.ts';
import { DataFileError, loadYamlValidated } from '../../runtime/core/yaml-document.ts';
import { SetupError } from '../errors.ts';
import type { Workload, WorkloadSpec } from './workload.ts';

const isDir = (p: string) => existsSync(p) && statSync(p).isDirectory();

/** Loads and validates one workload directory; every problem is a SetupError naming the file (and line). */
export function loadWorkload(dir: string): Workload {
  const abs = resolve(dir);
  const file = join(abs, 'workload.yaml');
  if (!existsSync(file)) throw new SetupError(`${file}: no workload.yaml in ${abs}`);
  let spec: WorkloadSpec;
  try {
    spec = loadYamlValidated<WorkloadSpec>(file, validatorFor<WorkloadSpec>('workload.schema.json'));
  } catch (e) {
    if (e instanceof DataFileError) throw new SetupError(e.message);
    throw e;
  }
  if (spec.name !== basename(abs))
    throw new SetupError(`${file}: name '${spec.name}' does not match its directory '${basename(abs)}' (rename one of them)`);
  const workspaceDir = join(abs, 'workspace');
  if (!isDir(workspaceDir)) throw new SetupError(`${abs}: missing workspace/ directory (the fixture the agent works in)`);
  const checkDir = join(abs, 'check');
  const sim = join(abs, 'sim.yaml');
  if (spec.evaluate?.check && !isDir(checkDir))
    throw new SetupError(`${file}: evaluate.check is set but ${checkDir} does not exist`);
  return { spec, dir: abs, workspaceDir, checkDir: isDir(checkDir) ? checkDir : null, simScriptPath: existsSync(sim) ? sim : null };
}

/** The subdirectories of `root` that hold a workload.yaml, sorted by name. */
export function workloadDirs(root: string): string[] {
  const abs = resolve(root);
  if (!isDir(abs)) throw new SetupError(`${abs}: workloads directory not found (pass --workloads-dir)`);
  return readdirSync(abs)
    .filter((n) => existsSync(join(abs, n, 'workload.yaml')))
    .sort()
    .map((n) => join(abs, n));
}

/** Every workload under `root`, loaded and validated. */
export function discoverWorkloads(root: string): Workload[] {
  return workloadDirs(root).map(loadWorkload);
}

/** Selection rules of benchmark.md §3.1/§4.1: names bypass the signal filter; marginal ones need the flag. */
export function selectWorkloads(all: Workload[], opts: { names: string[]; includeMarginal: boolean }): Workload[] {
  if (opts.names.length > 0) {
    return opts.names.map((n) => {
      const w = all.find((x) => x.spec.name === n);
      if (!w) throw new SetupError(`unknown workload '${n}'; available: ${all.map((x) => x.spec.name).join(', ') || '(none)'}`);
      return w;
    });
  }
  const picked = all.filter((w) => opts.includeMarginal || (w.spec.signal_strength ?? 'high') === 'high');
  if (picked.length === 0) {
    const marginal = all.filter((w) => w.spec.signal_strength === 'marginal').length;
    throw new SetupError(
      `no high-signal workload to run (${marginal} marginal workload(s) found). ` +
        'Pass --include-marginal to run them, or --workload NAME to run one by name (benchmark.md §4.1).',
    );
  }
  return picked;
}
