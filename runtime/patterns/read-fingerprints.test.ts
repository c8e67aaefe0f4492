import { closeSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Decimal } from 'decimal.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createVirtualClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { createHashingProvider, fingerprintsOfStore, openPatternStore, PatternReadError, readPatternFingerprints, type PatternStoreV2 } from './index.ts';
import { features } from './test-support/feature-fixtures.ts';
import { makeStore, recordTurn, tempDir as freshDir, type StoreFixture } from './test-support/store-fixtures.ts';

const HAIKU = 'anthropic:claude-haiku-4-5';
let fx: StoreFixture | null = null;
const dirs: string[] = [];
const tempDir = () => {
  const d = freshDir();
  dirs.push(d);
  return d;
};
afterEach(() => {
  fx?.cleanup();
  fx = null;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A v2 store with three fingerprints (two workloads), each with its embedding; returned closed, with what it held. */
async function v2Store(dir: string) {
  const path = join(dir, 'p.db');
  const store = openPatternStore(path, { logger: createMemoryLogger(), clock: createVirtualClock(1), fingerprintVersion: 'v2', embeddingProvider: createHashingProvider() }) as PatternStoreV2;
  const turns = [['w1', 'fix the bug in the login handler', ['debug']], ['w1', 'fix the bug in the logout handler', ['debug', 'x']], ['w2', 'write release notes', ['write']]] as const;
  for (const [i, [w, text, tags]] of turns.entries()) {
    const input = { turn_id: `t${i}`, features: features({ workload_id: w, intent_tags: [...tags] }), primary_model: HAIKU, success_score: 0.9, cost_usd: new Decimal('0.01'), latency_ms: 100, pricing_version: 'p1' };
    store.record({ ...input, embedding: await store.embedForRecording(text) }, { session_id: 's', turn_id: `t${i}`, parent_event_id: null });
  }
  const live = fingerprintsOfStore(store);
  const held = { fingerprints: live.fingerprints, embeddings: live.fingerprints.map((f) => live.embeddings!.of(f.id)) };
  store.close();
  return { path, held };
}

/** The PatternReadError reading `path` throws. */
function readError(path: string, provider: string | null = null): PatternReadError {
  try {
    readPatternFingerprints(path, provider);
  } catch (e) {
    expect(e).toBeInstanceOf(PatternReadError);
    return e as PatternReadError;
  }
  throw new Error(`${path} was read`);
}

describe('readPatternFingerprints', () => {
  it("reads what the live store holds: its fingerprints, and a v2 store's embeddings by the provider asked for", async () => {
    const { path, held } = await v2Store(tempDir());
    const read = readPatternFingerprints(path, 'local:hashing-384');
    expect(read.fingerprints).toEqual(held.fingerprints);
    expect(held.embeddings.every((e) => e !== null)).toBe(true);
    expect(read.fingerprints.map((f) => read.embeddings!.of(f.id))).toEqual(held.embeddings);
    expect(read.embeddings!.provider).toBe('local:hashing-384');
    // Another provider's view has no embeddings; a v1 read has no embeddings view at all.
    const other = readPatternFingerprints(path, 'openai:text-embedding-3-small');
    expect(other.fingerprints.map((f) => other.embeddings!.of(f.id))).toEqual([null, null, null]);
    expect(readPatternFingerprints(path, null).embeddings).toBeNull();
  });

  it('never writes the file: a v1 store in rollback-journal mode keeps its bytes and its mode', () => {
    fx = makeStore();
    recordTurn(fx.store, features({ workload_id: 'a', intent_tags: ['debug'] }));
    fx.store.close();
    const w = new Database(fx.path);
    w.pragma('journal_mode = DELETE');
    w.close();
    const before = readFileSync(fx.path);
    expect(readPatternFingerprints(fx.path, 'local:hashing-384').fingerprints).toHaveLength(1);
    expect(readFileSync(fx.path).equals(before)).toBe(true);
  });

  it('a store written before embeddings had columns reads with none', () => {
    const path = join(tempDir(), 'old.db');
    fx = makeStore();
    recordTurn(fx.store, features({ workload_id: 'a', intent_tags: ['debug'] }));
    const row = new Database(fx.path, { readonly: true }).prepare('SELECT id, kind, structural_json, structural_sig, created_at_us FROM fingerprints').get() as Record<string, unknown>;
    const old = new Database(path);
    old.exec('CREATE TABLE fingerprints (id TEXT PRIMARY KEY, kind TEXT, structural_json TEXT, structural_sig TEXT, created_at_us INTEGER)');
    old.prepare('INSERT INTO fingerprints VALUES (@id, @kind, @structural_json, @structural_sig, @created_at_us)').run(row);
    old.close();
    const read = readPatternFingerprints(path, 'local:hashing-384');
    expect(read.fingerprints.map((f) => f.id)).toEqual([row.id]);
    expect(read.embeddings!.of(row.id as string)).toBeNull();
  });

  it('says why a file cannot be read, naming it: missing, not SQLite, no store in it, newer schema, damaged', async () => {
    const dir = tempDir();
    expect(readError(join(dir, 'nope.db')).message).toMatch(/nope\.db: no such pattern store \(check the path\)/);

    const text = join(dir, 'notes.db');
    writeFileSync(text, 'these are my notes, not a database\n'.repeat(200));
    expect(readError(text).message).toMatch(/notes\.db: is not a SQLite database/);

    const empty = join(dir, 'empty.db');
    new Database(empty).close();
    expect(readError(empty).reason).toMatch(/^holds no pattern store \(no fingerprints table/);

    const newer = join(dir, 'newer.db');
    const n = new Database(newer);
    n.pragma('user_version = 3');
    n.close();
    expect(readError(newer).reason).toMatch(/pattern store schema version 3, but this code reads version \d+; read it with the bench that wrote it/);

    // Pages after the header overwritten: SQLite finds the damage when it reads the fingerprints.
    const { path } = await v2Store(join(dir, 'damaged'));
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.alloc(8192, 0xa5), 0, 8192, 4096);
    closeSync(fd);
    expect(readError(path).reason).toBe('the pattern store is damaged (SQLite: database disk image is malformed); restore it from a copy');
  });
});
