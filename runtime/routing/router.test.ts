import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSystemClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { createEventBus, type BusEvent } from '../events/index.ts';
import { loadModelRegistry } from '../models/index.ts';
import { createRouter, defaultRoutingConfig, type TurnRouteRequest } from './index.ts';

const HAIKU = 'anthropic:claude-haiku-4-5';
const SONNET = 'anthropic:claude-sonnet-4-6';

function setup() {
  const bus = createEventBus({ mode: 'strict', logger: createMemoryLogger(), clock: createSystemClock() });
  const seen: BusEvent[] = [];
  bus.subscribe({ name: 'record', filter: {}, fast_path: true, handler: (e) => void seen.push(e) });
  const router = createRouter({ bus, registry: loadModelRegistry(), global: { ...defaultRoutingConfig(), default_model: HAIKU } });
  const ws = mkdtempSync(join(tmpdir(), 'router-ws-'));
  let n = 0;
  const request = (over: Partial<TurnRouteRequest> = {}): TurnRouteRequest => ({
    workspaceRoot: ws, userMessage: 'hello', history: [], estimatedInputTokens: 100, toolsOffered: true, hasImages: false,
    stickyModel: null, overrideModel: null, workloadId: null, session_id: 'sess_1', turn_id: `turn_${++n}`, parent_event_id: 'ev_0', ...over,
  });
  return { bus, seen, router, ws, request };
}

describe('router (the session-facing routing engine)', () => {
  it('emits exactly one route.decided per turn with the whole chain; workspace routing.yaml overrides the global default', async () => {
    const { bus, seen, router, ws, request } = setup();
    expect(router.decide(request()).chosen_model).toBe(HAIKU);
    mkdirSync(join(ws, '.metis'));
    writeFileSync(join(ws, '.metis', 'routing.yaml'), 'default_model: sonnet\n');
    const d = router.decide(request());
    expect(d.chosen_model).toBe(SONNET); // alias resolved to the canonical id
    await bus.drain();
    const decided = seen.filter((e) => e.type === 'route.decided');
    expect(decided).toHaveLength(2);
    expect((decided[1]!.payload as { chain: { policy: string; verdict: string }[] }).chain.map((c) => [c.policy, c.verdict])).toEqual([
      ['per_message_override', 'not_applicable'],
      ['manual_sticky', 'not_applicable'],
      ['rule', 'not_applicable'],
      ['pattern', 'not_applicable'],
      ['delegate_request', 'not_applicable'],
      ['workspace_default', 'chose'],
      ['global_default', 'deferred'],
    ]);
  });

  it('an invalid workspace routing.yaml emits routing.policy_invalid once and keeps the last good config', async () => {
    const { bus, seen, router, ws, request } = setup();
    mkdirSync(join(ws, '.metis'));
    writeFileSync(join(ws, '.metis', 'routing.yaml'), 'default_model: sonnet\n');
    expect(router.decide(request()).chosen_model).toBe(SONNET);
    writeFileSync(join(ws, '.metis', 'routing.yaml'), 'default_model: sonnet\nbogus_key: 1\n');
    expect(router.decide(request()).chosen_model).toBe(SONNET);
    expect(router.decide(request()).chosen_model).toBe(SONNET);
    await bus.drain();
    const invalid = seen.filter((e) => e.type === 'routing.policy_invalid');
    expect(invalid).toHaveLength(1);
    expect(invalid[0]!.payload).toMatchObject({ using_last_known_good: true });
    expect(String((invalid[0]!.payload as { errors: string[] }).errors[0])).toMatch(/routing\.yaml:2:1: unknown key 'bogus_key'/);
  });
});
