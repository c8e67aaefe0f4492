// A prepared turn reads its workspace's routing.yaml once, however many knob values its decisions patch
// over the global config; a new turn (a new prepare, or decide) reads it again.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSystemClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { createEventBus } from '../events/index.ts';
import { loadModelRegistry } from '../models/index.ts';
import { createRouter, defaultRoutingConfig, type TurnRouteRequest } from './index.ts';
import { applyWorkspaceRouting, loadRoutingConfig, readWorkspaceRouting } from './load-routing-config.ts';

const HAIKU = 'anthropic:claude-haiku-4-5';
const SONNET = 'anthropic:claude-sonnet-4-6';
const OPUS = 'anthropic:claude-opus-4-5';

function setup() {
  const bus = createEventBus({ mode: 'strict', logger: createMemoryLogger(), clock: createSystemClock() });
  const router = createRouter({ bus, registry: loadModelRegistry(), global: { ...defaultRoutingConfig(), default_model: HAIKU } });
  const ws = mkdtempSync(join(tmpdir(), 'prepared-ws-'));
  mkdirSync(join(ws, '.metis'));
  const write = (text: string) => writeFileSync(join(ws, '.metis', 'routing.yaml'), text);
  const request: TurnRouteRequest = {
    workspaceRoot: ws, userMessage: 'hello', history: [], estimatedInputTokens: 100, toolsOffered: true, hasImages: false,
    stickyModel: null, overrideModel: null, workloadId: null, session_id: 'sess_1', turn_id: 'turn_1', parent_event_id: 'ev_0',
  };
  return { router, ws, write, request };
}

const ids = (n: number) => ({ session_id: 'sess_1', turn_id: `turn_${n}`, parent_event_id: 'ev_0' });

describe('a prepared turn reads the workspace routing.yaml once', () => {
  it('a file changed between two decisions of one prepared turn does not change the second; the next turn sees it', () => {
    const { router, write, request } = setup();
    write('default_model: sonnet\n');
    const turn = router.prepare!(request);
    expect(turn.decide(ids(1), { cost_weight: 0.1 }).chosen_model).toBe(SONNET);
    write('default_model: opus\n');
    // Another knob value of the same turn: the file as this turn read it.
    expect(turn.decide(ids(2), { cost_weight: 0.2 }).chosen_model).toBe(SONNET);
    expect(turn.decide(ids(3)).chosen_model).toBe(SONNET);
    expect(router.prepare!(request).decide(ids(4), { cost_weight: 0.2 }).chosen_model).toBe(OPUS);
    expect(router.decide({ ...request, turn_id: 'turn_5' }).chosen_model).toBe(OPUS);
  });

  it('a file that appears or disappears mid-turn is seen from the next turn on', () => {
    const { router, ws, write, request } = setup();
    const turn = router.prepare!(request);
    expect(turn.decide(ids(1), { cost_weight: 0 }).chosen_model).toBe(HAIKU);
    write('default_model: sonnet\n');
    expect(turn.decide(ids(2), { cost_weight: 0.5 }).chosen_model).toBe(HAIKU);
    const next = router.prepare!(request);
    expect(next.decide(ids(3), { cost_weight: 0.5 }).chosen_model).toBe(SONNET);
    rmSync(join(ws, '.metis', 'routing.yaml'));
    expect(next.decide(ids(4), { cost_weight: 0.3 }).chosen_model).toBe(SONNET);
    expect(router.prepare!(request).decide(ids(5), { cost_weight: 0.3 }).chosen_model).toBe(HAIKU);
  });

  it('an invalid file after a removed one falls back to the global config, not to the file before it', () => {
    const { router, ws, write, request } = setup();
    write('default_model: sonnet\n');
    expect(router.prepare!(request).decide(ids(1), { cost_weight: 0.1 }).chosen_model).toBe(SONNET);
    rmSync(join(ws, '.metis', 'routing.yaml'));
    expect(router.prepare!(request).decide(ids(2), { cost_weight: 0.1 }).chosen_model).toBe(HAIKU);
    write('default_model: sonnet\nbogus_key: 1\n');
    expect(router.prepare!(request).decide(ids(3), { cost_weight: 0.1 }).chosen_model).toBe(HAIKU);
    write('default_model: opus\n');
    expect(router.prepare!(request).decide(ids(4), { cost_weight: 0.1 }).chosen_model).toBe(OPUS);
    write('default_model: opus\nbogus_key: 1\n');
    expect(router.prepare!(request).decide(ids(5), { cost_weight: 0.1 }).chosen_model).toBe(OPUS);
  });

  it('loadRoutingConfig is applyWorkspaceRouting over readWorkspaceRouting: none, valid and invalid files', () => {
    const { ws, write } = setup();
    const global = { ...defaultRoutingConfig(), default_model: HAIKU };
    const both = () => [loadRoutingConfig(global, ws), applyWorkspaceRouting(global, readWorkspaceRouting(ws))];
    rmSync(join(ws, '.metis'), { recursive: true });
    let [a, b] = both();
    expect(a).toEqual(b);
    expect(a!.policy_path).toBeNull();
    mkdirSync(join(ws, '.metis'));
    write('default_model: sonnet\n');
    [a, b] = both();
    expect(a).toEqual(b);
    expect(a!.workspace_default_model).toBe('sonnet');
    write('default_model: sonnet\nbogus_key: 1\n');
    [a, b] = both();
    expect(a).toEqual(b);
    expect(a!.invalid?.using_last_known_good).toBe(true);
  });

  it('a router given readWorkspace reads every workspace file through it, in decide and in prepare', () => {
    const { ws, write, request } = setup();
    write('default_model: sonnet\n');
    const bus = createEventBus({ mode: 'strict', logger: createMemoryLogger(), clock: createSystemClock() });
    const roots: string[] = [];
    const once = readWorkspaceRouting(ws);
    const readWorkspace = (root: string) => (roots.push(root), once);
    const router = createRouter({ bus, registry: loadModelRegistry(), global: { ...defaultRoutingConfig(), default_model: HAIKU }, readWorkspace });
    write('default_model: opus\n');
    // The file as readWorkspace answers it (read before the change), not as it now is on disk.
    expect(router.decide(request).chosen_model).toBe(SONNET);
    expect(router.prepare!(request).decide(ids(2), { cost_weight: 0.1 }).chosen_model).toBe(SONNET);
    expect(roots).toEqual([ws, ws]);
  });
});
