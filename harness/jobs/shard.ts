import { createHash } from 'node:crypto';
import { InvalidArgumentError } from 'commander';
import type { PassSpec } from './passes.ts';
import { SetupError } from '../errors.ts';

/** `--shard I/N`: this machine runs slice I (1-based) of N. */
export interface ShardSpec {
  index: number;
  count: number;
}

/** One unit of work of a run: a rep of a workload in a pass. `index` is its place in the whole run's order. */
export interface RunJob {
  index: number;
  pass: string;
  workload: string;
  rep: number;
}

/** Parses `--shard I/N` (1 <= I <= N), naming the flag in the error. */
export function parseShard(value: string): ShardSpec {
  const m = /^(\d+)\/(\d+)$/.exec(value.trim());
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count) throw new InvalidArgumentError(`--shard takes I/N with 1 <= I <= N (e.g. 2/3), got '${value}'`);
  return { index, count };
}

/** The key a job is hashed by: what it is, never where it sits on disk or in a list. */
export function jobKey(job: Pick<RunJob, 'pass' | 'workload' | 'rep'>): string {
  return `${job.pass}\u0000${job.workload}\u0000${job.rep}`;
}

/**
 * The shard (1-based) a job belongs to among `count`: the first 48 bits of SHA-256 of
 * "pass NUL workload NUL rep", modulo count. Stable across machines, orders and selections.
 */
export function shardOf(job: Pick<RunJob, 'pass' | 'workload' | 'rep'>, count: number): number {
  const h = createHash('sha256').update(jobKey(job)).digest();
  return (h.readUIntBE(0, 6) % count) + 1;
}

/**
 * Every job of a run in the order one machine runs them (passes in protocol order, workloads in
 * selection order, reps ascending). `index` is that order and is the same on every shard. A plan
 * of more than `maxJobs` is refused (SetupError, exit 2) before it is built.
 */
export function planJobs(passes: readonly PassSpec[], workloads: readonly { name: string; delegates: boolean }[], reps: number, maxJobs = Infinity): RunJob[] {
  // Counted before anything is built: a plan too big for memory is refused, never half-built.
  const count = passes.reduce((n, pass) => n + workloads.filter((w) => !pass.delegationOnly || w.delegates).length * reps, 0);
  if (count > maxJobs) {
    throw new SetupError(`the run would plan ${count} jobs (${passes.length} pass(es) x ${workloads.length} workload(s) x ${reps} rep(s)), more than planned_jobs_max (${maxJobs}, runtime/data/resource-limits.json); lower --seed-passes or select fewer workloads`);
  }
  const out: RunJob[] = [];
  for (const pass of passes) {
    for (const w of workloads) {
      if (pass.delegationOnly && !w.delegates) continue;
      for (let rep = 0; rep < reps; rep++) out.push({ index: out.length, pass: pass.name, workload: w.name, rep });
    }
  }
  return out;
}

/** The jobs of `passes` that fall in `shard` (all of them without a shard). */
export function selectJobs(all: readonly RunJob[], passes: readonly string[], shard: ShardSpec | null): RunJob[] {
  return all.filter((j) => passes.includes(j.pass) && (shard === null || shardOf(j, shard.count) === shard.index));
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * The run id every shard of one run derives alike when `--run-id` is not given: `run_` and 26
 * Crockford base-32 characters of SHA-256 over what makes two machines' work one run (seed, protocol,
 * seed passes, models, selected workloads, commit, price table). Passes and the shard are left out,
 * so Pass C/D on the merge machine gets the same id as the A/B shards.
 */
export function derivedRunId(facts: { seed: number; protocol: string; seedPasses: number; actualModel: string; baselineModel: string; workloads: readonly string[]; commit: string | null; pricingVersion: string; fingerprintVersion: string }): string {
  const text = JSON.stringify([facts.seed, facts.protocol, facts.seedPasses, facts.actualModel, facts.baselineModel, facts.workloads, facts.commit, facts.pricingVersion, facts.fingerprintVersion]);
  const h = createHash('sha256').update(text).digest();
  let bits = 0n;
  for (const b of h.subarray(0, 17)) bits = (bits << 8n) | BigInt(b);
  let s = '';
  for (let i = 0; i < 26; i++) s += CROCKFORD[Number((bits >> BigInt(5 * (25 - i) + 6)) & 31n)];
  return `run_${s}`;
}
