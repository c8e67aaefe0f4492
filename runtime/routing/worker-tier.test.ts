// Explicit beats learned (issue 13 item 4): a worker's delegate_request tier outranks slot 4.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createSystemClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { createEventBus, type BusEvent } from '../events/index.ts';
import { createPatternSlot } from '../learning/index.ts';
import { loadModelRegistry } from '../models/index.ts';
import { openPatternStore, type PatternStore } from '../patterns/index.ts';
import { createRouter, defaultRoutingConfig, type TurnRouteRequest } from './index.ts';

const HAIKU = 'anthropic:claude-haiku-4-5';
const SONNET = 'anthropic:claude-sonnet-4-6';
const stores: PatternStore[] = [];
afterEach(() => stores.splice(0).forEach((s) => s.close()));

/** A router whose slot 4 reads a store warmed so that every turn like `message` favours sonnet. */
function warmRouter(message: string) {
  const clock = createSystemClock();
  const bus = createEventBus({ mode: 'strict', logger: createMemoryLogger(), clock });
  const seen: BusEvent[] = [];
  bus.subscribe({ name: 'record', filter: {}, fast_path: true, handler: (e) => void seen.push(e) });
  const store = openPatternStore(join(mkdtempSync(join(tmpdir(), 'worker-tier-')), 'p.db'), { logger: createMemoryLogger(), clock, bus: null });
  stores.push(store);
  const slot4 = createPatternSlot({ store, bus, toolSideEffects: {} });
  const global = { ...defaultRoutingConfig(), default_model: HAIKU };
  const router = createRouter({ bus, registry: loadModelRegistry(), global, slot4 });
  const ws = mkdtempSync(join(tmpdir(), 'worker-tier-ws-'));
  let n = 0;
  const request = (over: Partial<TurnRouteRequest> = {}): TurnRouteRequest => ({
    workspaceRoot: ws, userMessage: message, history: [{ role: 'user', content: [{ type: 'text', text: message }] }], estimatedInputTokens: 900,
    toolsOffered: true, hasImages: false, stickyModel: null, overrideModel: null, workloadId: 'w', session_id: 'sess_1', turn_id: `turn_${++n}`, parent_event_id: 'ev_0', ...over,
  });
  // Warm the store: sonnet solved this shape of turn 12 times, haiku failed it 12 times.
  for (const [model, score] of [[SONNET, 1], [HAIKU, 0]] as const) {
    for (let i = 0; i < 12; i++) {
      const req = request();
      router.decide(req); // computes the turn's features the way a live turn does
      const features = slot4.featuresOf(req.turn_id)!;
      const ctx = { session_id: 'sess_seed', turn_id: req.turn_id, parent_event_id: null };
      store.record({ turn_id: req.turn_id, features, primary_model: model, success_score: null, cost_usd: new Decimal(model === SONNET ? '0.03' : '0.01'), latency_ms: 10, pricing_version: 'p' }, ctx);
      store.updateScore({ turn_id: req.turn_id, score, confidence: 1, eval_id: `eval_${req.turn_id}`, pricing_version: null, min_eval_confidence: 0 }, ctx);
    }
  }
  return { router, request, seen, global, bus };
}

type Chain = { policy: string; verdict: string; candidate_model: string | null; reason: string }[];

describe('worker sessions: the planner\'s tier outranks learned routing', () => {
  it('a warm store that prefers sonnet routes a planner turn to sonnet, but a worker asking for the fast tier gets the tier model', async () => {
    const { router, request, seen, global, bus } = warmRouter('fix the failing parser test in src/parse.ts');
    // The store is warm: an ordinary (planner) turn of this shape is routed by slot 4 to sonnet.
    expect(router.decide(request()).chosen_model).toBe(SONNET);
    await bus.drain();
    const planner = seen.filter((e) => e.type === 'route.decided').at(-1)!.payload as { chain: Chain };
    expect(planner.chain.find((c) => c.policy === 'pattern')).toMatchObject({ verdict: 'chose', candidate_model: SONNET });

    const fastModel = loadModelRegistry().resolve(global.tiers.fast).id;
    expect(fastModel).not.toBe(SONNET); // otherwise the test could not fail
    const worker = router.decide(request({ delegateTier: 'fast', session_id: 'sess_worker' }));
    expect(worker.chosen_model).toBe(fastModel);
    await bus.drain();
    const chain = (seen.filter((e) => e.type === 'route.decided').at(-1)!.payload as { chain: Chain }).chain;
    expect(chain.find((c) => c.policy === 'pattern')).toMatchObject({ verdict: 'not_applicable', reason: "worker session: the planner asked for tier 'fast'" });
    expect(chain.find((c) => c.verdict === 'chose')).toMatchObject({ policy: 'delegate_request', candidate_model: fastModel });
  });

  it('a sticky (forced) model still outranks the tier in a worker session', () => {
    const { router, request } = warmRouter('fix the failing parser test in src/parse.ts');
    expect(router.decide(request({ delegateTier: 'fast', stickyModel: SONNET })).chosen_model).toBe(SONNET);
  });
});
