import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAnalytics, type Analytics } from '../../runtime/analytics/index.ts';
import { createEventsFixture, TEST_PRICES } from '../../runtime/analytics/events-fixture.ts';
import { A3_PASSES } from '../jobs/passes.ts';
import type { WorkloadRunRecord } from '../runs/run-store.ts';
import { a3Metrics } from './protocol-metrics.ts';

const SESSIONS = ['s0', 's1', 's2', 's3', 's4', 's5', 's6', 's7'];
const CHEAP = 'anthropic:claude-haiku-4-5';
const STRONG = 'anthropic:claude-sonnet-4-6';

function record(pass: string, workload: string, rep: number, sessionIds: string[]): WorkloadRunRecord {
  return { id: `${pass}/${workload}/${rep}`, run_id: 'r', workload, pass, rep, model: CHEAP, signal_strength: 'high', session_ids: sessionIds, started_at_us: 0, ended_at_us: 0, turns: 1, score: null, confidence: null, outcome: 'unsolved', check: null, assertions: [], error: null };
}

/** unforced_turns as it was read before: each forced rep's own selection, in the records' order. */
function unforcedPerRep(analytics: Analytics, records: readonly WorkloadRunRecord[]) {
  const forced = new Set(A3_PASSES.filter((p) => p.forced !== null).map((p) => p.name));
  return records
    .filter((r) => forced.has(r.pass))
    .flatMap((rec) =>
      analytics
        .routeChoices({ sessions: rec.session_ids })
        .filter((row) => row.policy !== 'manual_sticky')
        .map((row) => ({ pass: rec.pass, workload: rec.workload, rep: rec.rep, session_id: row.session_id, turn_id: row.turn_id ?? '', policy: row.policy ?? 'none', chosen_model: row.chosen_model })),
    );
}

describe('a3Metrics: unforced turns', () => {
  it("are each forced rep's decisions no slot but manual sticky won, rep by rep in the records' order, each rep's in event order (property)", () => {
    const decision = fc.record({ session: fc.constantFrom(...SESSIONS), policy: fc.constantFrom('manual_sticky', 'task_rule', 'global_default'), winner: fc.nat(1), model: fc.constantFrom(CHEAP, STRONG) });
    // Reps of the forced passes and of C, each holding some sessions (a delegating rep holds several), in any order.
    const rep = fc.record({ pass: fc.constantFrom('A', 'B', 'C'), workload: fc.constantFrom('w1', 'w2'), sessions: fc.subarray(SESSIONS, { maxLength: 3 }) });
    fc.assert(
      fc.property(fc.array(decision, { maxLength: 30 }), fc.array(rep, { maxLength: 8 }), (decisions, reps) => {
        const f = createEventsFixture();
        for (const [i, d] of decisions.entries())
          f.add({ type: 'route.decided', session_id: d.session, turn_id: `t${i}`, payload: { chosen_model: d.model, winner_index: d.winner, chain: [{ policy: d.policy }, { policy: 'global_default' }] } });
        const records = reps.map((r, i) => record(r.pass, r.workload, i, r.sessions));
        for (const sessionMemo of [true, false]) {
          const analytics = createAnalytics(f.db, TEST_PRICES, { sessionMemo });
          const metrics = a3Metrics({ analytics, records, baseline: STRONG, cheapModel: CHEAP, strongModel: STRONG, fingerprints: null });
          expect(metrics.unforced_turns).toEqual(unforcedPerRep(analytics, records));
        }
      }),
      { seed: 2029, numRuns: 150 },
    );
  });
});
