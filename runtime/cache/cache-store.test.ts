import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHashingProvider } from '../patterns/embeddings/hashing-provider.ts';
import type { CanonicalRequest } from '../types/request.ts';
import { CacheStore, CacheStoreError } from './cache-store.ts';
import { EmbeddingEngine } from './embedding-engine.ts';
import { SemanticCache } from './semantic-cache.ts';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'cache-store-'));
  dirs.push(d);
  return d;
};
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

const req = (text: string): CanonicalRequest => ({ model: 'm', system: null, system_volatile: null, tools: [], messages: [{ role: 'user', content: [{ type: 'text', text }] }], temperature: 0, max_tokens: 8 });
const answer = (text: string) => ({ model: 'm', content: [{ type: 'text' as const, text }], stop_reason: 'end_turn' as const, usage: { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0, cache_creation_input_tokens: 0 }, latency_ms: 1, request_id: 'r' });

describe('CacheStore', () => {
  it('a cache reopened from its file serves what it kept (both tiers) and keeps learned thresholds', async () => {
    const file = join(tmp(), 'cache.db');
    const make = (store: CacheStore) => new SemanticCache({ scope: { tenant: 't', workspace: 'w' }, embeddings: new EmbeddingEngine(createHashingProvider(384)), costOf: () => '0.002', store });
    const s1 = new CacheStore(file);
    await make(s1).complete(req('What is the tallest mountain on Earth?'), () => Promise.resolve(answer('Everest.')));
    s1.close();
    const s2 = new CacheStore(file);
    expect(s2.count()).toBe(2);
    const again = await make(s2).complete(req('What is the tallest mountain on Earth?'), () => Promise.reject(new Error('should be cached')));
    expect(again.servedBy).toBe('exact');
    expect(make(s2).size()).toEqual({ exact: 1, semantic: 1 });
    s2.close();
  });

  it('names the file and the fix for a cache written by a newer schema', () => {
    const file = join(tmp(), 'future.db');
    new CacheStore(file).close();
    const raw = new Database(file);
    raw.pragma('user_version = 9');
    raw.close();
    expect(() => new CacheStore(file)).toThrow(CacheStoreError);
    expect(() => new CacheStore(file)).toThrow(/future\.db.*delete the file/);
  });

  it('names the file when it is not a database', () => {
    const file = join(tmp(), 'junk.db');
    writeFileSync(file, 'not sqlite at all, just text '.repeat(200));
    expect(() => new CacheStore(file).count()).toThrow();
  });

  it('a process killed in the middle of writing leaves the cache readable and consistent', async () => {
    const file = join(tmp(), 'crash.db');
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'test-support', 'write-forever.ts'), file], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', () => resolve());
      child.on('exit', (code) => reject(new Error(`writer exited early (${code})`)));
    });
    // Let it write for a while more, then kill it without warning, mid-transaction most likely.
    await new Promise((r) => setTimeout(r, 300));
    child.kill('SIGKILL');
    await new Promise((r) => child.on('exit', r));
    const store = new CacheStore(file);
    expect(store.integrityOk()).toBe(true);
    const rows = store.loadAll();
    // Each write evicts the entry three back in the same transaction: a torn write would leave 2 or 4.
    expect(rows.length).toBe(3);
    for (const r of rows) {
      expect(r.vector).toHaveLength(8);
      expect(r.entry.response.content[0]).toMatchObject({ type: 'text' });
    }
    store.close();
  }, 120_000);
});
