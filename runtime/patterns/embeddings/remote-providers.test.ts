import { afterEach, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../../../test/support/loopback/index.ts';
import { createEmbeddingProvider } from './create-embedding-provider.ts';

const servers: LoopbackServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
const KEY = 'sk-test-secret-123456';

describe('openai:text-embedding-3-small on loopback', () => {
  it('sends model, input and dimensions with a bearer key and returns normalised vectors in index order', async () => {
    const s = await startLoopbackServer({
      path: '/v1/embeddings',
      basePath: '/v1',
      fallback: () => ({ kind: 'json', body: { object: 'list', model: 'text-embedding-3-small', data: [{ object: 'embedding', index: 1, embedding: [0, 2] }, { object: 'embedding', index: 0, embedding: [3, 4] }], usage: { prompt_tokens: 2, total_tokens: 2 } } }),
    });
    servers.push(s);
    const p = createEmbeddingProvider('openai:text-embedding-3-small', { env: { OPENAI_API_KEY: KEY }, baseURL: s.baseURL });
    const [a, b] = await p.embed(['first', 'second']);
    expect(Array.from(a!)).toEqual([Math.fround(0.6), Math.fround(0.8)]);
    expect(Array.from(b!)).toEqual([0, 1]);
    const req = s.requests[0]!;
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req.body).toMatchObject({ model: 'text-embedding-3-small', input: ['first', 'second'], encoding_format: 'float' });
  });
  it('an HTTP error becomes a clear error that does not contain the key', async () => {
    const s = await startLoopbackServer({ path: '/v1/embeddings', basePath: '/v1', fallback: () => ({ kind: 'json', status: 401, body: { error: { message: `bad key ${KEY}` } } }) });
    servers.push(s);
    const p = createEmbeddingProvider('openai:text-embedding-3-small', { env: { OPENAI_API_KEY: KEY }, baseURL: s.baseURL });
    const err = (await p.embed(['x']).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/openai:text-embedding-3-small: embeddings request failed \(HTTP 401\)/);
    expect(err.message).not.toContain(KEY);
  });
});

describe('cohere:embed-multilingual-v3.0 on loopback', () => {
  it('posts to /v2/embed with texts, input_type and float embedding type, bearer auth', async () => {
    const s = await startLoopbackServer({ path: '/v2/embed', fallback: () => ({ kind: 'json', body: { id: 'x', embeddings: { float: [[0, 0, 5]] } } }) });
    servers.push(s);
    const p = createEmbeddingProvider('cohere:embed-multilingual-v3.0', { env: { COHERE_API_KEY: KEY }, baseURL: s.baseURL });
    const [v] = await p.embed(['hola']);
    expect(Array.from(v!)).toEqual([0, 0, 1]);
    expect(s.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(s.requests[0]!.body).toEqual({ model: 'embed-multilingual-v3.0', texts: ['hola'], input_type: 'search_document', embedding_types: ['float'] });
  });
  it('an HTTP error or a missing key is a clear error without the key', async () => {
    const s = await startLoopbackServer({ path: '/v2/embed', fallback: () => ({ kind: 'json', status: 500, body: { message: KEY } }) });
    servers.push(s);
    const p = createEmbeddingProvider('cohere:embed-multilingual-v3.0', { env: { COHERE_API_KEY: KEY }, baseURL: s.baseURL });
    const err = (await p.embed(['x']).catch((e: unknown) => e)) as Error;
    expect(err.message).toBe('cohere:embed-multilingual-v3.0: embed request failed (HTTP 500)');
    expect(() => createEmbeddingProvider('cohere:embed-multilingual-v3.0', { env: {} })).toThrow(/COHERE_API_KEY is not set/);
  });
});

describe('API providers are deterministic over a replayed response (§16.10 test 2)', () => {
  it('the same text through a replaying server gives byte-identical vectors for openai and cohere', async () => {
    const s = await startLoopbackServer({ path: '/v1/embeddings', basePath: '/v1', fallback: () => ({ kind: 'json', body: { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2, 0.3] }] } }) });
    const c = await startLoopbackServer({ path: '/v2/embed', fallback: () => ({ kind: 'json', body: { id: 'x', embeddings: { float: [[0.3, 0.2, 0.1]] } } }) });
    servers.push(s, c);
    for (const p of [
      createEmbeddingProvider('openai:text-embedding-3-small', { env: { OPENAI_API_KEY: KEY }, baseURL: s.baseURL }),
      createEmbeddingProvider('cohere:embed-multilingual-v3.0', { env: { COHERE_API_KEY: KEY }, baseURL: c.baseURL }),
    ]) {
      const [a] = await p.embed(['same text']);
      const [b] = await p.embed(['same text']);
      expect(Buffer.from(a!.buffer).equals(Buffer.from(b!.buffer))).toBe(true);
    }
  });
});

describe('paid embedders report the input tokens their API billed', () => {
  it('openai: usage.prompt_tokens (total_tokens when prompt_tokens is absent); null when no usage is sent', async () => {
    const bodies = [
      { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [1, 0] }], usage: { prompt_tokens: 7, total_tokens: 7 } },
      { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [1, 0] }], usage: { total_tokens: 5 } },
      { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [1, 0] }] },
    ];
    let n = 0;
    const s = await startLoopbackServer({ path: '/v1/embeddings', basePath: '/v1', fallback: () => ({ kind: 'json', body: bodies[n++]! }) });
    servers.push(s);
    const p = createEmbeddingProvider('openai:text-embedding-3-small', { env: { OPENAI_API_KEY: KEY }, baseURL: s.baseURL });
    const got = [];
    for (let i = 0; i < 3; i++) got.push((await p.embedWithUsage!(['one text'])).input_tokens);
    expect(got).toEqual([7, 5, null]);
  });
  it('cohere: meta.billed_units.input_tokens; null when the body has no meta', async () => {
    const bodies = [{ id: 'x', embeddings: { float: [[0, 1]] }, meta: { billed_units: { input_tokens: 11 } } }, { id: 'y', embeddings: { float: [[0, 1]] } }];
    let n = 0;
    const s = await startLoopbackServer({ path: '/v2/embed', fallback: () => ({ kind: 'json', body: bodies[n++]! }) });
    servers.push(s);
    const p = createEmbeddingProvider('cohere:embed-english-v3.0', { env: { COHERE_API_KEY: KEY }, baseURL: s.baseURL });
    const first = await p.embedWithUsage!(['hello']);
    expect(first.input_tokens).toBe(11);
    expect(Array.from(first.vectors[0]!)).toEqual([0, 1]);
    expect((await p.embedWithUsage!(['hello'])).input_tokens).toBeNull();
  });
});
