import { createHash } from 'node:crypto';
import type { Analytics } from '../../runtime/analytics/index.ts';
import { seededRandom } from '../../runtime/core/seeded-random.ts';
import type { TurnRouter } from '../../runtime/routing/index.ts';
import { strongCallShare } from '../metrics/index.ts';
import { RANDOM_PASS } from '../jobs/passes.ts';
import type { WorkloadRunRecord } from '../runs/run-store.ts';
import type { Workload } from '../workloads/workload.ts';
import { runWorkloadRep, type RunnerDeps } from '../runner/run-workload.ts';

/** The routed pass whose strong-call share Pass R copies. */
export const RANDOM_ARM_SOURCE_PASS = 'C';

/** Prefix of slot 1's reason on every Pass R turn: how the trace tells a random decision from a user's override. */
export const RANDOM_REASON_PREFIX = 'random router (Pass R)';

/**
 * The seed of one rep's coin: SHA-256 of (run seed, "random-arm", workload, rep), first 32 bits. Its own
 * label keeps it apart from every other seeded draw of the run (the sim's plans, the cache's exploration);
 * per rep, so reps draw alike whatever order or concurrency they run in.
 */
export function randomArmSeed(runSeed: number, workload: string, rep: number): number {
  return createHash('sha256').update(`${runSeed}\u0000random-arm\u0000${workload}\u0000${rep}`).digest().readUInt32BE(0);
}

/** What the random router needs: the share to route at, the two models, and the rep's coin. */
export interface RandomRouteOptions {
  /** Probability that a turn goes to the strong model, in [0, 1]. */
  strongShare: number;
  cheapModel: string;
  strongModel: string;
  /** Uniform draws in [0, 1), one per routed turn. */
  random(): number;
}

/**
 * A router that names the model of every turn (planner and worker turns alike) by a coin: strong with
 * probability `strongShare`, else cheap. The choice enters the chain as slot 1's per-turn override with
 * its draw as the reason, so route.decided says the decision was random and what drew it.
 */
export function randomRouter(inner: TurnRouter, o: RandomRouteOptions): TurnRouter {
  if (!(o.strongShare >= 0 && o.strongShare <= 1)) throw new RangeError(`random router: strongShare must lie in [0, 1], got ${o.strongShare}`);
  return {
    policyVersion: (root) => inner.policyVersion(root),
    tierModel: (tier, root) => inner.tierModel(tier, root),
    decide(req) {
      const u = o.random();
      const strong = u < o.strongShare;
      const reason = `${RANDOM_REASON_PREFIX}: strong with probability ${o.strongShare}; draw ${u.toFixed(6)} → ${strong ? 'strong' : 'cheap'}`;
      return inner.decide({ ...req, overrideModel: strong ? o.strongModel : o.cheapModel, overrideReason: reason });
    },
  };
}

/** Pass R's share and the reps it pairs with, or why it cannot run in this DB. */
export type RandomArmPlan = { run: true; strongShare: number; units: readonly { workload: string; rep: number }[] } | { run: false; reason: string };

/**
 * Pass R needs every rep of Pass C finished in this DB (its share is measured over all of C's routed turns,
 * overall rather than per workload, the same share the headline's interpolation uses).
 */
export function planRandomArm(input: { records: readonly WorkloadRunRecord[]; analytics: Pick<Analytics, 'routeDecisions'>; workloads: readonly string[]; seedPasses: number; strongModel: string }): RandomArmPlan {
  const c = input.records.filter((r) => r.pass === RANDOM_ARM_SOURCE_PASS);
  const expected = input.workloads.length * input.seedPasses;
  const finished = c.filter((r) => !r.stopped_early);
  if (finished.length < expected) return { run: false, reason: `Pass C finished ${finished.length} of its ${expected} reps in this DB; Pass R copies the share of a complete Pass C` };
  const share = strongCallShare(input.analytics.routeDecisions({ sessions: finished.flatMap((r) => r.session_ids) }).map((r) => r.decision), input.strongModel);
  if (share === null) return { run: false, reason: 'Pass C routed no turns, so there is no strong-call share to copy' };
  return { run: true, strongShare: share, units: finished.map((r) => ({ workload: r.workload, rep: r.rep })).sort((a, b) => input.workloads.indexOf(a.workload) - input.workloads.indexOf(b.workload) || a.rep - b.rep) };
}

/** What Pass R needs from the run. */
export interface RandomArmRunOptions {
  runId: string;
  runSeed: number;
  workloads: readonly Workload[];
  temperature: number;
  strongShare: number;
  cheapModel: string;
  strongModel: string;
  /** The (workload, rep) units of Pass C, in run order. */
  units: readonly { workload: string; rep: number }[];
  /** The policy chain without slot 4: the coin names every model, and the run's store is left as C and D left it. */
  router: TurnRouter;
  deps: Omit<RunnerDeps, 'router'>;
  /** Called with each finished rep; return true to stop (e.g. --max-cost reached). */
  onRecord(record: WorkloadRunRecord): boolean;
}

/**
 * Pass R: each of Pass C's (workload, rep) units again, every turn sent to the strong model with
 * probability = C's strong-call share by the rep's own seeded coin. The sim is asked for pass C's draws,
 * so R and C face the same plans turn for turn when they pick the same model (common random numbers).
 */
export async function runRandomPass(o: RandomArmRunOptions): Promise<{ stopped: boolean }> {
  for (const unit of o.units) {
    if (o.deps.interrupt?.aborted) return { stopped: true };
    const workload = o.workloads.find((w) => w.spec.name === unit.workload)!;
    const router = randomRouter(o.router, { strongShare: o.strongShare, cheapModel: o.cheapModel, strongModel: o.strongModel, random: seededRandom(randomArmSeed(o.runSeed, unit.workload, unit.rep)) });
    const record = await runWorkloadRep(
      { runId: o.runId, workload, pass: RANDOM_PASS.name, rep: unit.rep, stickyModel: null, temperature: o.temperature },
      { ...o.deps, router, providerFor: (w, _pass, r) => o.deps.providerFor(w, RANDOM_ARM_SOURCE_PASS, r) },
    );
    if (o.onRecord(record)) return { stopped: true };
  }
  return { stopped: false };
}
