import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createVirtualClock } from '../../runtime/core/clock.ts';
import { createMemoryLogger } from '../../runtime/core/logger.ts';
import { createDeterministicProvider, isPatternStoreV2, openPatternStore, type EmbeddingProvider } from '../../runtime/patterns/index.ts';
import { features } from '../../runtime/patterns/test-support/feature-fixtures.ts';
import { defaultRoutingConfig } from '../../runtime/routing/index.ts';
import { SetupError } from '../errors.ts';
import { choosePatternStore, openRunPatternStore } from './run-pattern-store.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const deps = (canEmbed: boolean) => ({ logger: createMemoryLogger(), clock: createVirtualClock(1), env: {}, canEmbed });

/** A store recorded by a run that used OpenAI embeddings (played here by a deterministic embedder under that id). */
async function openAiRecordedStore(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'run-store-'));
  dirs.push(dir);
  const path = join(dir, 'p.db');
  const provider: EmbeddingProvider = { ...createDeterministicProvider(8), provider_id: 'openai:text-embedding-3-small' };
  const store = openPatternStore(path, { logger: createMemoryLogger(), clock: createVirtualClock(1), fingerprintVersion: 'v2', embeddingProvider: provider });
  const input = { turn_id: 't1', features: features({ workload_id: 'w' }), primary_model: 'anthropic:claude-haiku-4-5', success_score: 0.9, cost_usd: new Decimal('0.01'), latency_ms: 1, pricing_version: 'p1' };
  store.record({ ...input, embedding: await store.embedForRecording('fix it') }, { session_id: 's', turn_id: 't1', parent_event_id: null });
  store.close();
  return path;
}

describe('choosing and opening the run pattern store', () => {
  const routing = defaultRoutingConfig();

  it('flags win over routing.yaml; a provider alone implies v2; v2 alone gets the offline embedder', () => {
    const v2yaml = { ...routing, pattern: { ...routing.pattern, fingerprint_version: 'v2' as const } };
    expect(choosePatternStore(routing, {}).fingerprint_version).toBe('v1');
    expect(choosePatternStore(v2yaml, {})).toMatchObject({ fingerprint_version: 'v2', embedding_provider: 'local:hashing-384', embedding_alpha: 0.6 });
    expect(choosePatternStore(v2yaml, { fingerprintVersion: 'v1' })).toMatchObject({ fingerprint_version: 'v1', embedding_provider: null, embedding_alpha: null });
    expect(choosePatternStore(routing, { embeddingProvider: 'cohere:embed-multilingual-v3.0' })).toMatchObject({ fingerprint_version: 'v2', embedding_provider: 'cohere:embed-multilingual-v3.0' });
    expect(() => choosePatternStore(routing, { fingerprintVersion: 'v1', embeddingProvider: 'local:hashing-384' })).toThrow(SetupError);
  });

  it('analyze reads a store embedded by a remote provider without its key; a run that must embed refuses, naming the key', async () => {
    const path = await openAiRecordedStore();
    const choice = { ...choosePatternStore(defaultRoutingConfig(), { embeddingProvider: 'openai:text-embedding-3-small' }) };
    const store = openRunPatternStore(path, choice, deps(false));
    expect(isPatternStoreV2(store)).toBe(true);
    if (!isPatternStoreV2(store)) return;
    const [fp] = store.fingerprints();
    expect(store.fingerprintEmbedding(fp!.id)).toHaveLength(8);
    await expect(store.embedForRecording('new text')).rejects.toThrow(/read-only/);
    store.close();
    expect(() => openRunPatternStore(path, choice, deps(true))).toThrow(/OPENAI_API_KEY is not set/);
  });
});
