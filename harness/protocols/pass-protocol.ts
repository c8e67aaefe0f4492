import { accumulationErrors } from '../report/pattern-checks.ts';
import { runWorkloadRep } from '../runner/run-workload.ts';
import { planJobs, type RunJob } from '../jobs/shard.ts';
import type { PassSpec, ProtocolName } from '../jobs/passes.ts';
import type { ProtocolContext, RunProtocol } from './run-protocol.ts';

/** The model a pass pins every turn to, or null when routing decides. */
export function forcedModel(pass: PassSpec, ctx: Pick<ProtocolContext, 'cheapModel' | 'strongModel'>): string | null {
  return pass.forced === 'cheap' ? ctx.cheapModel : pass.forced === 'strong' ? ctx.strongModel : null;
}

/**
 * A protocol made of passes over the agent workloads (single, signal, A3): each job is one rep of one
 * workload in one pass, forced to a model or routed by the run's router; a forced pass must leave every
 * recorded turn in the shared store (benchmark.md §6.4). `over` replaces or adds to these defaults.
 */
export function createPassProtocol(name: ProtocolName, passes: readonly PassSpec[], over: Partial<Omit<RunProtocol, 'name' | 'passes'>> = {}): RunProtocol {
  const byName = new Map(passes.map((p) => [p.name, p]));
  return {
    name,
    passes,
    plan: ({ workloads, reps, maxJobs }) => planJobs(passes, workloads.map((w) => ({ name: w.spec.name, delegates: (w.spec.expect?.min_delegate_calls ?? 0) > 0 })), reps, maxJobs),
    runOne: (job: RunJob, ctx) => {
      const workload = ctx.workloads.find((w) => w.spec.name === job.workload)!;
      return runWorkloadRep({ runId: ctx.runId, workload, pass: job.pass, rep: job.rep, stickyModel: forcedModel(byName.get(job.pass)!, ctx), temperature: ctx.temperature }, { ...ctx.deps, router: ctx.router, onProgress: ctx.onProgress });
    },
    afterPass: (pass, ran, ctx) => {
      if (pass.forced === null || ran === 0) return [];
      // From the DB, so reps committed before a resume count; a shard holds only some reps of a workload.
      const passRecords = ctx.runs.workloadRuns(ctx.runId).filter((r) => r.pass === pass.name);
      return accumulationErrors(ctx.patterns, passRecords, ctx.shard ? 1 : ctx.seedPasses);
    },
    finish: () => Promise.resolve(false),
    reportSection: () => null,
    provenance: {},
    ...over,
  };
}
