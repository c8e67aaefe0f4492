import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../runtime/core/seeded-random.ts';
import type { RouteDecidedPayload, TurnRouter, TurnRouteRequest } from '../../runtime/routing/index.ts';
import type { WorkloadRunRecord } from '../runs/run-store.ts';
import { planRandomArm, RANDOM_REASON_PREFIX, randomArmSeed, randomRouter } from './random-arm.ts';
import { randomArmNotRun } from './report-section.ts';

const CHEAP = 'anthropic:claude-haiku-4-5';
const STRONG = 'anthropic:claude-sonnet-4-6';

/** A router that records what it was asked and chooses the override, as slot 1 of the real chain does. */
function recordingRouter(): TurnRouter & { seen: TurnRouteRequest[] } {
  const seen: TurnRouteRequest[] = [];
  return {
    seen,
    policyVersion: () => 'v',
    tierModel: () => null,
    decide(req) {
      seen.push(req);
      return { chosen_model: req.overrideModel ?? CHEAP, event_id: `ev${seen.length}` };
    },
  };
}

const request = (i: number): TurnRouteRequest => ({
  workspaceRoot: '/w', userMessage: 'm', history: [], estimatedInputTokens: 10, toolsOffered: true, hasImages: false, stickyModel: null, overrideModel: null, workloadId: 'w', session_id: 's', turn_id: `t${i}`, parent_event_id: 'p',
});

describe('the random router (Pass R)', () => {
  it('names every turn by its coin, through slot 1, with the probability and the draw as the reason', () => {
    const inner = recordingRouter();
    const draws = [0.1, 0.5, 0.29999, 0.3];
    const router = randomRouter(inner, { strongShare: 0.3, cheapModel: CHEAP, strongModel: STRONG, random: () => draws.shift()! });
    const chosen = [0, 1, 2, 3].map((i) => router.decide(request(i)).chosen_model);
    expect(chosen).toEqual([STRONG, CHEAP, STRONG, CHEAP]);
    expect(inner.seen.map((r) => r.overrideModel)).toEqual(chosen);
    expect(inner.seen[0]!.overrideReason).toBe(`${RANDOM_REASON_PREFIX}: strong with probability 0.3; draw 0.100000 → strong`);
    expect(inner.seen[1]!.overrideReason).toBe(`${RANDOM_REASON_PREFIX}: strong with probability 0.3; draw 0.500000 → cheap`);
  });

  it('refuses a share outside [0, 1]', () => {
    for (const bad of [-0.1, 1.5, Number.NaN]) expect(() => randomRouter(recordingRouter(), { strongShare: bad, cheapModel: CHEAP, strongModel: STRONG, random: Math.random })).toThrow(/strongShare must lie in \[0, 1\]/);
  });

  it("its strong-call share matches the target within sampling error, at any share and seed", () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 2 ** 31 }), (p, seed) => {
        const router = randomRouter(recordingRouter(), { strongShare: p, cheapModel: CHEAP, strongModel: STRONG, random: seededRandom(seed) });
        const n = 4000;
        let strong = 0;
        for (let i = 0; i < n; i++) if (router.decide(request(i)).chosen_model === STRONG) strong += 1;
        // 5 standard errors (plus one turn of slack at the ends, where the error is 0).
        expect(Math.abs(strong / n - p)).toBeLessThanOrEqual(5 * Math.sqrt((p * (1 - p)) / n) + 1 / n);
      }),
      { numRuns: 40, seed: 23 },
    );
  });

  it('draws per (run seed, workload, rep): stable, and apart from other reps, workloads and seeds', () => {
    expect(randomArmSeed(0, 'w', 0)).toBe(randomArmSeed(0, 'w', 0));
    const seeds = new Set([randomArmSeed(0, 'w', 0), randomArmSeed(0, 'w', 1), randomArmSeed(0, 'v', 0), randomArmSeed(1, 'w', 0)]);
    expect(seeds.size).toBe(4);
    for (const s of seeds) expect(Number.isInteger(s) && s >= 0 && s < 2 ** 32).toBe(true);
  });
});

const rec = (workload: string, rep: number, stopped = false): WorkloadRunRecord =>
  ({ id: `r-${workload}-${rep}`, run_id: 'run', workload, pass: 'C', rep, session_ids: [`s-${workload}-${rep}`], stopped_early: stopped }) as unknown as WorkloadRunRecord;
const decision = (model: string) => ({ decision: { chosen_model: model } as RouteDecidedPayload });

describe('planRandomArm', () => {
  const analytics = (models: Record<string, string[]>) => ({
    routeDecisions: ({ sessions }: { sessions: readonly string[] }) => sessions.flatMap((s) => (models[s] ?? []).map(decision)) as never,
  });

  it("copies Pass C's share over all of its routed turns, and pairs with C's units in workload order", () => {
    const plan = planRandomArm({
      records: [rec('b', 1), rec('a', 0), rec('b', 0), rec('a', 1)],
      analytics: analytics({ 's-a-0': [STRONG, CHEAP], 's-a-1': [CHEAP], 's-b-0': [STRONG], 's-b-1': [CHEAP, CHEAP, CHEAP] }),
      workloads: ['b', 'a'],
      seedPasses: 2,
      strongModel: STRONG,
    });
    expect(plan).toEqual({ run: true, strongShare: 2 / 7, units: [{ workload: 'b', rep: 0 }, { workload: 'b', rep: 1 }, { workload: 'a', rep: 0 }, { workload: 'a', rep: 1 }] });
  });

  it('does not run on a Pass C that is not complete in this DB, or that routed nothing, and says why', () => {
    const partial = planRandomArm({ records: [rec('a', 0), rec('a', 1, true)], analytics: analytics({ 's-a-0': [STRONG] }), workloads: ['a'], seedPasses: 2, strongModel: STRONG });
    expect(partial).toEqual({ run: false, reason: 'Pass C finished 1 of its 2 reps in this DB; Pass R copies the share of a complete Pass C' });
    const silent = planRandomArm({ records: [rec('a', 0)], analytics: analytics({}), workloads: ['a'], seedPasses: 1, strongModel: STRONG });
    expect(silent).toEqual({ run: false, reason: 'Pass C routed no turns, so there is no strong-call share to copy' });
  });

  it('names why provenance kept Pass R out', () => {
    expect(randomArmNotRun({ random_arm: false, shard: null })).toMatch(/^--no-random-arm/);
    expect(randomArmNotRun({ shard: { index: 1, count: 2 } })).toMatch(/^a sharded run/);
    expect(randomArmNotRun({ shard: null })).toBeNull();
  });
});
