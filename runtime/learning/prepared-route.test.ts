// A turn prepared once and decided at many pattern knobs (the evidence-then-score split) answers exactly
// what a router built with each knob answers, route.decided included, and searches the store once.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createSystemClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { seededRandom } from '../core/seeded-random.ts';
import { createEventBus, type BusEvent } from '../events/index.ts';
import { loadModelRegistry } from '../models/index.ts';
import { openPatternStore, type PatternStore } from '../patterns/index.ts';
import { createRouter, defaultRoutingConfig, type PatternConfig, type TurnRouteRequest } from '../routing/index.ts';
import { createPatternSlot } from './index.ts';

const HAIKU = 'anthropic:claude-haiku-4-5';
const SONNET = 'anthropic:claude-sonnet-4-6';
const OPUS = 'anthropic:claude-opus-4-5';
const MODELS = [HAIKU, SONNET, OPUS];
const COST = { [HAIKU]: '0.01', [SONNET]: '0.03', [OPUS]: '0.09' } as Record<string, string>;
const WEIGHTS = [0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.8, 1];
const stores: PatternStore[] = [];
afterEach(() => stores.splice(0).forEach((s) => s.close()));

const messages = ['fix the failing test in parser.ts', 'explain the docs of README.md', 'refactor utils.py and add tests', 'why does the build crash?', 'summarise the changelog'];

/** A store with varied outcomes over three workloads, the slot, and a request maker. */
function world(pattern: Partial<PatternConfig>, seed: number) {
  const clock = createSystemClock();
  const logger = createMemoryLogger();
  const bus = createEventBus({ mode: 'strict', logger, clock });
  const decided: BusEvent[] = [];
  bus.subscribe({ name: 'record', filter: { event_types: new Set(['route.decided', 'pattern.matched']) }, fast_path: true, handler: (e) => void decided.push(e) });
  const store = openPatternStore(join(mkdtempSync(join(tmpdir(), 'prepared-route-')), 'p.db'), { logger, clock, bus: null });
  stores.push(store);
  let evidenceCalls = 0;
  const counted: PatternStore = {
    ...store,
    evidence: (f, o) => {
      evidenceCalls++;
      return store.evidence!(f, o);
    },
  };
  const slot4 = createPatternSlot({ store: counted, bus, toolSideEffects: {}, random: seededRandom(seed), candidates: () => MODELS });
  const base = defaultRoutingConfig();
  const ws = mkdtempSync(join(tmpdir(), 'prepared-route-ws-'));
  let n = 0;
  const request = (text: string, workloadId: string): TurnRouteRequest => ({
    workspaceRoot: ws, userMessage: text, history: [{ role: 'user', content: [{ type: 'text', text }] }], estimatedInputTokens: 40 * text.length,
    toolsOffered: true, hasImages: false, stickyModel: null, overrideModel: null, workloadId, session_id: 'sess_1', turn_id: `turn_${++n}`, parent_event_id: 'ev_0',
  });
  const globalAt = (w: number) => ({ ...base, default_model: HAIKU, pattern: { ...base.pattern, ...pattern, cost_weight: w } });
  const seedRouter = createRouter({ bus, registry: loadModelRegistry(), global: globalAt(0), slot4 });
  const rnd = seededRandom(seed + 99);
  for (let i = 0; i < 90; i++) {
    const req = request(messages[i % messages.length]!, `w${i % 3}`);
    seedRouter.decide(req);
    const model = MODELS[Math.floor(rnd() * 3)]!;
    const ctx = { session_id: 'sess_seed', turn_id: req.turn_id, parent_event_id: null };
    store.record({ turn_id: req.turn_id, features: slot4.featuresOf(req.turn_id)!, primary_model: model, success_score: rnd() < 0.3 + 0.25 * MODELS.indexOf(model) ? 1 : 0, cost_usd: new Decimal(COST[model]!), latency_ms: 10, pricing_version: 'p' }, ctx);
    slot4.forget(req.turn_id);
  }
  return { bus, decided, slot4, request, globalAt, evidence: () => evidenceCalls };
}

/** Each turn decided by a router built per weight, then by one prepared turn per message; models and payloads. */
async function both(pattern: Partial<PatternConfig>) {
  const plain = world(pattern, 7);
  const routers = WEIGHTS.map((w) => createRouter({ bus: plain.bus, registry: loadModelRegistry(), global: plain.globalAt(w), slot4: plain.slot4 }));
  const prep = world(pattern, 7);
  const router = createRouter({ bus: prep.bus, registry: loadModelRegistry(), global: prep.globalAt(0.05), slot4: prep.slot4 });
  const asked = messages.map((m, i) => prep.request(m, `w${i % 3}`));
  const prepared = asked.map((r) => router.prepare!(r));
  plain.decided.length = 0;
  prep.decided.length = 0;
  const evidenceBefore = prep.evidence();
  const a: string[] = [];
  const b: string[] = [];
  // Weight by weight, message by message, in both: the order in which exploration draws.
  WEIGHTS.forEach((w, i) =>
    messages.forEach((m, j) => {
      const ids = { session_id: 'sess_2', turn_id: `t_${i}_${j}`, parent_event_id: 'ev_1' };
      a.push(routers[i]!.decide({ ...plain.request(m, `w${j % 3}`), ...ids }).chosen_model);
      b.push(prepared[j]!.decide(ids, { cost_weight: w }).chosen_model);
    }),
  );
  await plain.bus.drain();
  await prep.bus.drain();
  // Fingerprint ids are each world's own ULIDs: named by order of first appearance; timings zeroed.
  const strip = (events: BusEvent[]) => {
    const names = new Map<string, string>();
    const text = JSON.stringify(events.map((e) => ({ type: e.type, turn_id: e.turn_id, payload: e.payload })))
      .replace(/"elapsed_ms":[0-9.e-]+/g, '"elapsed_ms":0')
      .replace(/[0-9A-HJKMNP-TV-Z]{26}/g, (id) => names.get(id) ?? (names.set(id, `fp${names.size}`), `fp${names.size - 1}`));
    return JSON.parse(text) as unknown;
  };
  return { a, b, plainEvents: strip(plain.decided), prepEvents: strip(prep.decided), evidenceCalls: prep.evidence() - evidenceBefore };
}

describe('PreparedRoute: one turn, its evidence gathered once, decided at every cost_weight', () => {
  it.each([
    ['similarity_weighted (the default)', {}],
    ['uniform, no floor', { scoring: 'uniform', min_similarity: 0 }],
    ['expected_gain', { scoring: 'expected_gain' }],
    ['expected_gain with thompson exploration', { scoring: 'expected_gain', exploration: 'thompson' }],
  ] as [string, Partial<PatternConfig>][])('%s: the same models and the same route.decided / pattern.matched as a router per weight', async (_name, pattern) => {
    const r = await both(pattern);
    expect(r.b).toEqual(r.a);
    // The sweep must move the choice somewhere, or the comparison proves little.
    expect(new Set(r.a).size).toBeGreaterThan(1);
    expect(r.prepEvents).toEqual(r.plainEvents);
    expect((r.prepEvents as unknown[]).length).toBeGreaterThanOrEqual(WEIGHTS.length * messages.length);
    // One neighbour search per turn, not one per (turn, weight).
    expect(r.evidenceCalls).toBe(messages.length);
  });
});
