import { planRandomArm, runRandomPass } from './random-arm.ts';
import { a3ReportSection } from './report-section.ts';
import { runHoldoutPass, snapshotSeed, type HoldoutSeed } from './holdout.ts';
import { createPassProtocol } from './pass-protocol.ts';
import { A3_PASSES } from '../jobs/passes.ts';
import type { HoldoutKind } from '../jobs/passes.ts';
import type { RunProtocol } from './run-protocol.ts';

/** A3's own options (`bench run --protocol a3`); the suite runner passes them through untouched. */
export interface A3Options {
  /** `--holdout workload`: also run Pass C leave-one-workload-out as pass C-oos (harness/protocols/holdout.ts). */
  holdout: HoldoutKind | null;
  /** Run Pass R, the random router at Pass C's strong-call share, after the planned passes (off with --no-random-arm). */
  randomArm: boolean;
}

/** A3 as `bench analyze` rebuilds its section: no holdout asked, Pass R on. */
export const DEFAULT_A3_OPTIONS: A3Options = { holdout: null, randomArm: true };

/**
 * The A3 protocol (spec §8.2): Passes A and B seed the shared store with both arms, C routes over it,
 * D delegates; with `--holdout workload`, C-oos re-runs C out of sample from a snapshot taken after B;
 * then Pass R routes C's units at random at C's strong-call share (unless --no-random-arm or sharded).
 * One instance per run: it holds that snapshot.
 */
export function createA3Protocol(options: A3Options = DEFAULT_A3_OPTIONS): RunProtocol {
  let seed: HoldoutSeed | null = null;
  const base = createPassProtocol('a3', A3_PASSES);
  return createPassProtocol('a3', A3_PASSES, {
    // What the run's provenance records of these options (a resume and the report read them back).
    provenance: { ...(options.holdout ? { holdout: options.holdout } : {}), ...(options.randomArm ? {} : { random_arm: false as const }) },
    // C-oos re-runs Pass C; Pass R runs each of C's units again (when C completes and the run is not sharded).
    laterJobs: (jobs, sharded) => {
      const c = jobs.filter((j) => j.pass === 'C').length;
      return (options.holdout ? c : 0) + (options.randomArm && !sharded ? c : 0);
    },
    afterPass: (pass, ran, ctx) => {
      const errors = base.afterPass(pass, ran, ctx);
      // What A and B seeded, before Pass C learns: the holdout stores are built from it.
      if (options.holdout && pass.name === 'B') seed = snapshotSeed(ctx.patterns);
      return errors;
    },
    finish: async (ctx) => {
      if (options.holdout && seed) {
        ctx.stopLearning(); // the run's store must not learn from C-oos turns (they are routed by frozen holdout stores)
        const { stopped } = await runHoldoutPass({
          runId: ctx.runId, workloads: ctx.workloads, seedPasses: ctx.seedPasses, temperature: ctx.temperature, seed,
          openStore: ctx.openStore, routerFor: ctx.routerFor, deps: ctx.deps, onRecord: ctx.onRecord,
        });
        await ctx.drain();
        if (stopped) return true;
      }
      // Last, so no other pass (nor the run-wide cache, nor the store) sees anything of it.
      if (!options.randomArm || ctx.shard) return false;
      const plan = planRandomArm({ records: ctx.runs.workloadRuns(ctx.runId), analytics: ctx.analytics(), workloads: ctx.workloads.map((w) => w.spec.name), seedPasses: ctx.seedPasses, strongModel: ctx.strongModel });
      if (!plan.run) return false;
      ctx.stopLearning(); // Pass R's turns must not reach the store (cluster tightness and later runs on this store)
      const { stopped } = await runRandomPass({
        runId: ctx.runId, runSeed: ctx.runSeed, workloads: ctx.workloads, temperature: ctx.temperature, strongShare: plan.strongShare, cheapModel: ctx.cheapModel, strongModel: ctx.strongModel,
        units: plan.units, router: ctx.chainRouter, deps: { ...ctx.deps, onProgress: ctx.onProgress }, onRecord: ctx.onRecord,
      });
      await ctx.drain();
      return stopped;
    },
    reportSection: a3ReportSection,
  });
}
