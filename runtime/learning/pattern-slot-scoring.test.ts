// routing.yaml's pattern.scoring / pattern.min_similarity reach slot 4 (issue 13 item 3), end to end
// through the router: the knobs in force decide whether other workloads' outcomes can outvote a
// workload's own tie.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createSystemClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { createEventBus, type BusEvent } from '../events/index.ts';
import { loadModelRegistry } from '../models/index.ts';
import { openPatternStore, type PatternStore } from '../patterns/index.ts';
import { createRouter, defaultRoutingConfig, type PatternConfig, type TurnRouteRequest } from '../routing/index.ts';
import { createPatternSlot } from './index.ts';

const HAIKU = 'anthropic:claude-haiku-4-5';
const SONNET = 'anthropic:claude-sonnet-4-6';
const MESSAGE = 'the check fails on purpose; explain why and stop';
const stores: PatternStore[] = [];
afterEach(() => stores.splice(0).forEach((s) => s.close()));

/** Slot 4 over a store where `own` ties (both models fail) and four other, structurally equal workloads favour sonnet. */
function router(pattern: Partial<PatternConfig>) {
  const clock = createSystemClock();
  const bus = createEventBus({ mode: 'strict', logger: createMemoryLogger(), clock });
  const seen: BusEvent[] = [];
  bus.subscribe({ name: 'record', filter: { event_types: new Set(['route.decided']) }, fast_path: true, handler: (e) => void seen.push(e) });
  const store = openPatternStore(join(mkdtempSync(join(tmpdir(), 'slot-scoring-')), 'p.db'), { logger: createMemoryLogger(), clock, bus: null });
  stores.push(store);
  const slot4 = createPatternSlot({ store, bus, toolSideEffects: {} });
  const base = defaultRoutingConfig();
  const global = { ...base, default_model: HAIKU, pattern: { ...base.pattern, ...pattern } };
  const r = createRouter({ bus, registry: loadModelRegistry(), global, slot4 });
  const ws = mkdtempSync(join(tmpdir(), 'slot-scoring-ws-'));
  let n = 0;
  const request = (workloadId: string): TurnRouteRequest => ({
    workspaceRoot: ws, userMessage: MESSAGE, history: [{ role: 'user', content: [{ type: 'text', text: MESSAGE }] }], estimatedInputTokens: 900,
    toolsOffered: true, hasImages: false, stickyModel: null, overrideModel: null, workloadId, session_id: 'sess_1', turn_id: `turn_${++n}`, parent_event_id: 'ev_0',
  });
  const seed = (workloadId: string, model: string, score: number, times: number) => {
    for (let i = 0; i < times; i++) {
      const req = request(workloadId);
      r.decide(req);
      const ctx = { session_id: 'sess_seed', turn_id: req.turn_id, parent_event_id: null };
      store.record({ turn_id: req.turn_id, features: slot4.featuresOf(req.turn_id)!, primary_model: model, success_score: null, cost_usd: new Decimal(model === SONNET ? '0.03' : '0.01'), latency_ms: 10, pricing_version: 'p' }, ctx);
      store.updateScore({ turn_id: req.turn_id, score, confidence: 1, eval_id: `eval_${req.turn_id}`, pricing_version: null, min_eval_confidence: 0 }, ctx);
    }
  };
  seed('own', HAIKU, 0, 6);
  seed('own', SONNET, 0, 6);
  for (const w of ['a', 'b', 'c', 'd']) {
    seed(w, SONNET, 1, 6);
    seed(w, HAIKU, 0.2, 6);
  }
  /** Routes one more `own` turn; its model and the pattern slot's entry of route.decided. */
  const decide = async () => {
    const { chosen_model } = r.decide(request('own'));
    await bus.drain();
    const chain = (seen.at(-1)!.payload as { chain: { policy: string; verdict: string; candidate_model: string | null }[] }).chain;
    return { chosen_model, pattern: chain.find((c) => c.policy === 'pattern') };
  };
  return { decide };
}

describe("routing.yaml pattern.scoring and pattern.min_similarity in slot 4", () => {
  it('scoring uniform with no floor (the spec math) lets other workloads send the tie to sonnet', async () => {
    const d = await router({ scoring: 'uniform', min_similarity: 0 }).decide();
    expect(d.chosen_model).toBe(SONNET);
    expect(d.pattern).toMatchObject({ verdict: 'chose', candidate_model: SONNET });
  });

  it('the defaults keep the workload on its own evidence: the tie goes to the cheaper model', async () => {
    const defaults = defaultRoutingConfig().pattern;
    expect([defaults.scoring, defaults.min_similarity]).toEqual(['similarity_weighted', 0.5]);
    const d = await router({}).decide();
    expect(d.chosen_model).toBe(HAIKU);
    expect(d.pattern).toMatchObject({ verdict: 'chose', candidate_model: HAIKU });
  });

  it('similarity_weighted alone, without the floor, already breaks the tie the cheap way', async () => {
    expect((await router({ scoring: 'similarity_weighted', min_similarity: 0 }).decide()).chosen_model).toBe(HAIKU);
  });
});
