// A slot given knownFingerprint routes on the features it answers (a matrix run's per-task ones) and computes
// the fingerprint itself only when it answers nothing: on the plain and on the prepared (sweep) path.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSystemClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { createEventBus } from '../events/index.ts';
import { freezeFeatures, openMemoryPatternStore, type StructuralFeatures } from '../patterns/index.ts';
import { defaultRoutingConfig, type TurnRouteRequest } from '../routing/index.ts';
import { createPatternSlot } from './index.ts';

const MESSAGE = 'rename src/app.py and fix the failing test';

function setup(known: (req: TurnRouteRequest) => StructuralFeatures | undefined) {
  const clock = createSystemClock();
  const logger = createMemoryLogger();
  const bus = createEventBus({ mode: 'strict', logger, clock });
  const store = openMemoryPatternStore('known-fp', { logger, clock });
  const slot = createPatternSlot({ store, bus, toolSideEffects: {}, knownFingerprint: known });
  const ws = mkdtempSync(join(tmpdir(), 'known-fp-'));
  const request = (turn_id: string): TurnRouteRequest => ({
    workspaceRoot: ws, userMessage: MESSAGE, history: [{ role: 'user', content: [{ type: 'text', text: MESSAGE }] }], estimatedInputTokens: 400,
    toolsOffered: false, hasImages: false, stickyModel: null, overrideModel: null, workloadId: 'w1', session_id: 's', turn_id, parent_event_id: 'e',
  });
  return { slot, request };
}

describe('pattern slot: knownFingerprint', () => {
  it('routes on the answered features, and computes its own when none is answered', () => {
    const pattern = defaultRoutingConfig().pattern;
    const computed = setup(() => undefined);
    computed.slot.recommenderFor(computed.request('t1'), pattern);
    const own = computed.slot.featuresOf('t1')!;
    expect(own.file_extensions).toEqual(['.py']);

    const given = freezeFeatures({ ...own, intent_tags: ['given'] });
    const answered = setup((req) => (req.turn_id === 'known' ? given : undefined));
    answered.slot.recommenderFor(answered.request('known'), pattern);
    expect(answered.slot.featuresOf('known')).toBe(given);
    answered.slot.recommenderFor(answered.request('other'), pattern);
    expect(answered.slot.featuresOf('other')).toEqual(own);
    // The prepared path: the turn's fingerprint comes from the same hook.
    const turn = answered.request('known');
    answered.slot.prepareTurn!(turn).recommenderFor({ ...turn, turn_id: 'sweep-1' }, pattern);
    expect(answered.slot.featuresOf('sweep-1')).toBe(given);
  });
});
