import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSystemClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { createEventBus, type BusEvent } from '../events/index.ts';
import { createModelRegistry, loadModelRegistry, type ModelRegistry } from '../models/index.ts';
import { AdvancedRouter } from '../cache/advanced-router.ts';
import { loadPriceTable } from '../pricing/index.ts';
import { loadRoutingConfig } from './load-routing-config.ts';
import { createRulePolicy } from './policies/rule.ts';
import { createRoutingModeAdvisor } from './policies/routing-mode.ts';
import { routeContext } from './test-support/route-fixtures.ts';
import { createRouter, defaultRoutingConfig, type RouteDecidedPayload, type RoutingConfig, type TurnRouteRequest } from './index.ts';

const HAIKU = 'anthropic:claude-haiku-4-5';
const SONNET = 'anthropic:claude-sonnet-4-6';
const OPUS = 'anthropic:claude-opus-4-5';
const GPT5_MINI = 'openai:gpt-5-mini';

const FAQ = 'What is a vector database?';
const CODING = 'Implement a function in TypeScript that parses dates, refactor the class and fix the bug';

/**
 * Haiku and Sonnet only, Haiku's assumed competence raised to 0.7 (quality 3.8 of 5): in the shipped
 * profiles Haiku's 3.4 is below autopilot's 3.5 floor for every task type, so no turn could go to it.
 */
function twoModelRegistry(): ModelRegistry {
  const shipped = loadModelRegistry().list();
  return createModelRegistry(
    shipped.filter((m) => m.id === HAIKU || m.id === SONNET).map((m) => (m.id === HAIKU ? { ...m, sim: { ...m.sim, competence: 0.7 } } : m)),
    'test',
  );
}

function setup(opts: { global?: Partial<RoutingConfig>; registry?: ModelRegistry; workspaceYaml?: string } = {}) {
  const bus = createEventBus({ mode: 'strict', logger: createMemoryLogger(), clock: createSystemClock() });
  const seen: BusEvent[] = [];
  bus.subscribe({ name: 'record', filter: {}, fast_path: true, handler: (e) => void seen.push(e) });
  const global: RoutingConfig = { ...defaultRoutingConfig(), default_model: SONNET, ...opts.global };
  const router = createRouter({ bus, registry: opts.registry ?? loadModelRegistry(), global });
  const ws = mkdtempSync(join(tmpdir(), 'routing-mode-ws-'));
  if (opts.workspaceYaml !== undefined) {
    mkdirSync(join(ws, '.metis'));
    writeFileSync(join(ws, '.metis', 'routing.yaml'), opts.workspaceYaml);
  }
  let n = 0;
  const request = (over: Partial<TurnRouteRequest> = {}): TurnRouteRequest => ({
    workspaceRoot: ws, userMessage: FAQ, history: [], estimatedInputTokens: 100, toolsOffered: true, hasImages: false,
    stickyModel: null, overrideModel: null, workloadId: null, session_id: 'sess_1', turn_id: `turn_${++n}`, parent_event_id: 'ev_0', ...over,
  });
  /** Routes one turn and returns its single route.decided payload. */
  const decide = async (over: Partial<TurnRouteRequest> = {}): Promise<RouteDecidedPayload> => {
    const before = seen.filter((e) => e.type === 'route.decided').length;
    const d = router.decide(request(over));
    await bus.drain();
    const decided = seen.filter((e) => e.type === 'route.decided');
    expect(decided).toHaveLength(before + 1);
    const payload = decided.at(-1)!.payload as unknown as RouteDecidedPayload;
    expect(payload.chosen_model).toBe(d.chosen_model);
    return payload;
  };
  return { decide, ws, seen };
}

const ruleEntry = (p: RouteDecidedPayload) => p.chain.find((e) => e.policy === 'rule')!;

describe('routing modes in the policy chain (issue 16)', () => {
  it('off (the default, or written out) leaves the chain exactly as without the key', async () => {
    const plain = await setup().decide();
    const written = await setup({ workspaceYaml: 'routing_mode: off\n' }).decide();
    for (const p of [plain, written]) {
      expect(p.chosen_model).toBe(SONNET);
      expect(ruleEntry(p)).toMatchObject({ verdict: 'not_applicable', reason: 'no rules configured', rule_name: null });
    }
    expect(written.chain.map((e) => [e.policy, e.verdict, e.reason])).toEqual(plain.chain.map((e) => [e.policy, e.verdict, e.reason]));
  });

  it('autopilot sends a simple task type to the cheap model and a complex one to the strong model', async () => {
    const { decide } = setup({ registry: twoModelRegistry(), global: { routing_mode: 'autopilot', default_model: SONNET } });
    const faq = await decide({ userMessage: FAQ });
    expect(faq.chosen_model).toBe(HAIKU);
    expect(faq.chain[faq.winner_index]!.policy).toBe('rule');
    expect(ruleEntry(faq)).toMatchObject({ verdict: 'chose', rule_name: 'routing_mode:autopilot' });
    expect(ruleEntry(faq).reason).toMatch(/task type faq, constraint quality >= 3\.5 latency <= 500 ms/);
    const coding = await decide({ userMessage: CODING });
    expect(coding.chosen_model).toBe(SONNET);
    expect(ruleEntry(coding).reason).toMatch(/task type coding, constraint quality >= 4 /);
  });

  it('guided follows the quality preference: low takes the cheapest model, max the best one', async () => {
    const cheapest = await setup({ workspaceYaml: 'routing_mode: guided\nrouting_preferences: { quality: low }\n' }).decide();
    expect(cheapest.chosen_model).toBe(GPT5_MINI);
    expect(ruleEntry(cheapest)).toMatchObject({ verdict: 'chose', rule_name: 'routing_mode:guided' });
    expect(ruleEntry(cheapest).reason).toMatch(/task type faq, preferences quality low latency normal, constraint quality >= 3 /);
    const best = await setup({ workspaceYaml: 'routing_mode: guided\nrouting_preferences: { quality: max, latency: slow }\n' }).decide();
    expect(best.chosen_model).toBe(OPUS);
    expect(ruleEntry(best).reason).toMatch(/constraint quality >= 4\.5 latency <= 2000 ms/);
  });

  it('explicit keeps the requested model and lists only cheaper alternatives with their savings', async () => {
    const { decide } = setup({ workspaceYaml: 'routing_mode: explicit\n' });
    const byDefault = await decide();
    expect(byDefault.chosen_model).toBe(SONNET);
    const entry = ruleEntry(byDefault);
    expect(entry).toMatchObject({ verdict: 'chose', rule_name: 'routing_mode:explicit', candidate_model: SONNET });
    expect(entry.reason).toMatch(/user selected anthropic:claude-sonnet-4-6; cheaper alternatives: openai:gpt-5-mini \(saves \d+(\.\d+)?%/);
    expect(entry.reason).toContain(HAIKU);
    expect(entry.reason).not.toContain(OPUS); // dearer than Sonnet: not an alternative that saves
    // A per-message override still wins in slot 1; the rule slot agrees (deferred) and prices the alternatives.
    const overridden = await decide({ overrideModel: 'opus' });
    expect(overridden.chosen_model).toBe(OPUS);
    expect(overridden.winner_index).toBe(0);
    expect(ruleEntry(overridden)).toMatchObject({ verdict: 'deferred', candidate_model: OPUS });
    expect(ruleEntry(overridden).reason).toMatch(/user selected anthropic:claude-opus-4-5; cheaper alternatives: .*anthropic:claude-sonnet-4-6 \(saves/);
  });

  it('explicit abstains in the rule slot, naming why, when the requested model is unknown or there is none', () => {
    const advisor = createRoutingModeAdvisor('explicit', {}, new AdvancedRouter(loadModelRegistry(), loadPriceTable()))!;
    const rule = createRulePolicy([], advisor);
    const unknown = rule.evaluate(routeContext({ user_message: FAQ, override_model: 'nonexistent-model' }));
    expect(unknown.verdict).toBe('not_applicable');
    expect(unknown.reason).toMatch(/^no rules configured; routing_mode:explicit: unknown model 'nonexistent-model'/);
    const none = rule.evaluate(routeContext({ user_message: FAQ }));
    expect(none).toEqual({ verdict: 'not_applicable', reason: 'no rules configured; routing_mode:explicit: no model requested (no override, sticky or default model)' });
    expect(createRoutingModeAdvisor('off', {}, new AdvancedRouter(loadModelRegistry(), loadPriceTable()))).toBeNull();
  });

  it('a configured rule that matches still wins over the mode', async () => {
    const yaml = 'routing_mode: autopilot\nrules:\n  - name: docs\n    model: opus\n    match: { message_regex: "vector" }\n';
    const p = await setup({ workspaceYaml: yaml }).decide();
    expect(p.chosen_model).toBe(OPUS);
    expect(ruleEntry(p)).toMatchObject({ verdict: 'chose', rule_name: 'docs' });
  });

  it('rejects an unknown mode or preference with file and line, keeping the last good config', () => {
    const ws = (yaml: string) => {
      const root = mkdtempSync(join(tmpdir(), 'routing-mode-bad-'));
      mkdirSync(join(root, '.metis'));
      writeFileSync(join(root, '.metis', 'routing.yaml'), yaml);
      return root;
    };
    const global = defaultRoutingConfig();
    const bad = loadRoutingConfig(global, ws('default_model: haiku\nrouting_mode: turbo\n'));
    expect(bad.config.routing_mode).toBe('off');
    expect(bad.invalid?.errors[0]).toMatch(/routing\.yaml:2:\d+: \/routing_mode: must be equal to one of the allowed values/);
    const badPref = loadRoutingConfig(global, ws('routing_mode: guided\nrouting_preferences:\n  quality: cheapest\n'));
    expect(badPref.invalid?.errors[0]).toMatch(/routing\.yaml:3:\d+: \/routing_preferences\/quality: must be equal to one of the allowed values/);
  });

  it('a workspace file without routing_mode keeps the global mode; one with it replaces it', () => {
    const root = mkdtempSync(join(tmpdir(), 'routing-mode-merge-'));
    mkdirSync(join(root, '.metis'));
    const global: RoutingConfig = { ...defaultRoutingConfig(), routing_mode: 'guided', routing_preferences: { quality: 'high' } };
    writeFileSync(join(root, '.metis', 'routing.yaml'), 'default_model: haiku\n');
    expect(loadRoutingConfig(global, root).config).toMatchObject({ routing_mode: 'guided', routing_preferences: { quality: 'high' } });
    writeFileSync(join(root, '.metis', 'routing.yaml'), 'routing_mode: explicit\n');
    expect(loadRoutingConfig(global, root).config.routing_mode).toBe('explicit');
  });
});
