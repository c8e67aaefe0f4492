import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createVirtualClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { createEventBus } from '../events/index.ts';
import { sampleDraft } from '../events/test-support/sample-payloads.ts';
import { createDeterministicProvider, EmbeddingProviderError, openPatternStore, type EmbeddingProvider } from '../patterns/index.ts';
import { features } from '../patterns/test-support/feature-fixtures.ts';
import { startLearningLoop } from './learning-loop.ts';

// The recording path of pattern store v2 (pattern-store.md §16.13) as the learning loop drives it:
// a session's turns are embedded when it ends, and an embedder failure never loses the turn.
async function recordOneTurn(provider: EmbeddingProvider) {
  const logger = createMemoryLogger();
  const clock = createVirtualClock(1_700_000_000_000_000);
  const bus = createEventBus({ mode: 'strict', logger, clock });
  const store = openPatternStore(join(mkdtempSync(join(tmpdir(), 'loop-v2-')), 'p.db'), { logger, clock, fingerprintVersion: 'v2', embeddingProvider: provider });
  const f = features({ workload_id: 'w' });
  startLearningLoop({ bus, store, featuresOf: () => f, textOf: () => 'Fix the pager bug.', minEvalConfidence: () => 0.5, logger });
  const env = { session_id: 'sess_1', turn_id: 'turn_1' };
  bus.emit(sampleDraft('route.decided', env));
  bus.emit(sampleDraft('llm.call_completed', env));
  bus.emit(sampleDraft('session.ended', { session_id: 'sess_1' }));
  await bus.drain();
  const [fp] = store.fingerprints();
  return { store, logger, fp };
}

describe('learning loop with pattern store v2', () => {
  it('embeds the turn on the recording path: the fingerprint is hybrid and the text is cached for routing', async () => {
    const provider = createDeterministicProvider(8);
    const { store, fp } = await recordOneTurn(provider);
    expect(fp).toBeDefined();
    expect(store.fingerprintEmbedding(fp!.id)).toHaveLength(8);
    expect(store.cachedEmbedding('Fix the pager bug.')).not.toBeNull();
    store.close();
  });

  it('an embedder failure records the turn structural-only and says so at WARN', async () => {
    const failing: EmbeddingProvider = { ...createDeterministicProvider(8), embed: () => Promise.reject(new EmbeddingProviderError('test:deterministic-8', 'HTTP 503')) };
    const { store, logger, fp } = await recordOneTurn(failing);
    expect(fp).toBeDefined();
    expect(store.fingerprintEmbedding(fp!.id)).toBeNull();
    expect(logger.records.some((r) => r.level === 'warn' && r.msg.includes('embedding failed'))).toBe(true);
    store.close();
  });
});
