import type { PassSpec } from '../jobs/passes.ts';
import { jobKey, planJobs, selectJobs, type RunJob, type ShardSpec } from '../jobs/shard.ts';

/** A job as the merge names it. */
export const showJob = (k: Pick<RunJob, 'pass' | 'workload' | 'rep'>): string => `pass ${k.pass} ${k.workload} rep ${k.rep}`;

/**
 * The jobs a DB must hold, recomputed from the run's plan, the passes it ran and its shard spec (I of N):
 * never from the `in_this_db` flags the DB carries about itself, which whoever edits the DB can clear.
 */
export function jobsOfShard(plan: readonly RunJob[], passes: readonly string[], shard: ShardSpec): RunJob[] {
  return selectJobs(plan, passes, shard);
}

/**
 * How a stored plan differs from a whole plan of its protocol: every pass (delegation-only passes for the
 * workloads that delegate) times every workload times reps 0..k-1, in one-machine order. A job taken out
 * of the plan (with its row) on every shard leaves a hole here. One line per problem; empty when whole.
 */
export function planHoles(plan: readonly RunJob[], passes: readonly PassSpec[]): string[] {
  if (plan.length === 0) return ['the plan holds no job'];
  const delegationPasses = new Set(passes.filter((p) => p.delegationOnly).map((p) => p.name));
  const workloads: string[] = [];
  const delegates = new Set<string>();
  for (const j of plan) {
    if (delegationPasses.has(j.pass)) delegates.add(j.workload);
    else if (!workloads.includes(j.workload)) workloads.push(j.workload);
  }
  const reps = Math.max(...plan.map((j) => j.rep)) + 1;
  const whole = planJobs(
    passes,
    workloads.map((name) => ({ name, delegates: delegates.has(name) })),
    reps,
  );
  const stored = new Map(plan.map((j) => [jobKey(j), j]));
  const wholeKeys = new Set(whole.map(jobKey));
  const out: string[] = [];
  for (const j of whole) {
    const s = stored.get(jobKey(j));
    if (!s) out.push(`${showJob(j)} is missing from the plan`);
    else if (s.index !== j.index) out.push(`${showJob(j)} is job ${s.index} of the plan, not ${j.index}`);
  }
  for (const j of plan) if (!wholeKeys.has(jobKey(j))) out.push(`${showJob(j)} is in the plan but in no whole plan of its workloads and reps`);
  if (plan.length !== stored.size) out.push('the plan lists a job more than once');
  return out;
}

/** One input as the coverage check sees it: where it is, what it ran, and the reps it holds. */
export interface CoverageInput {
  path: string;
  passes: readonly string[];
  shard: ShardSpec;
  rows: readonly Pick<RunJob, 'pass' | 'workload' | 'rep'>[];
}

/**
 * How the inputs together fail to hold every planned job of the covered passes exactly once, each in
 * the input whose shard spec owns it. One line per problem, naming the job and the inputs; empty when
 * every job is held once, where it belongs.
 */
export function coverageProblems(plan: readonly RunJob[], covered: readonly string[], inputs: readonly CoverageInput[]): string[] {
  const owners = new Map<string, string[]>();
  for (const input of inputs) for (const j of jobsOfShard(plan, input.passes, input.shard)) owners.set(jobKey(j), [...(owners.get(jobKey(j)) ?? []), `${input.path} (shard ${input.shard.index}/${input.shard.count})`]);
  const holders = new Map<string, string[]>();
  for (const input of inputs) for (const r of input.rows) holders.set(jobKey(r), [...(holders.get(jobKey(r)) ?? []), input.path]);
  const out: string[] = [];
  for (const j of plan.filter((x) => covered.includes(x.pass))) {
    const k = jobKey(j);
    const own = owners.get(k) ?? [];
    const held = holders.get(k) ?? [];
    if (own.length !== 1) out.push(`${showJob(j)} belongs to ${own.length === 0 ? 'no input' : own.join(' and ')}`);
    else if (held.length === 0) out.push(`no input holds planned ${showJob(j)} (missing; ${own[0]} should)`);
    else if (held.length > 1) out.push(`${showJob(j)} is held by ${held.join(' and ')}`);
    else if (!own[0]!.startsWith(`${held[0]} (`)) out.push(`${showJob(j)} is held by ${held[0]}, but belongs to ${own[0]}`);
  }
  return out;
}
