import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { bench, tempDir } from '../support/cli.ts';

describe('prompt caching on the simulated provider (context-assembler.md §5.1 smoke)', () => {
  it('a two-turn session with the natural prompt writes the cache on turn 1 and reads it on turn 2 (haiku, 4,096-token floor)', async () => {
    const db = join(tempDir(), 'cache.db');
    const r = await bench(['run', '--workload', 'write-a-doc-from-notes', '--db-path', db], { env: { PATH: process.env.PATH } });
    expect(r.code, r.stderr).not.toBe(2);
    const conn = new Database(db, { readonly: true });
    const rows = conn
      .prepare(
        `SELECT t.id AS turn, c.payload_json AS p FROM events c JOIN events t ON t.turn_id = c.turn_id AND t.type = 'turn.started'
         WHERE c.type = 'llm.call_completed' ORDER BY c.id`,
      )
      .all() as { turn: string; p: string }[];
    conn.close();
    const turns = [...new Set(rows.map((r) => r.turn))];
    expect(turns.length).toBe(2);
    const first = JSON.parse(rows.find((r) => r.turn === turns[0])!.p) as Record<string, number>;
    const second = JSON.parse(rows.find((r) => r.turn === turns[1])!.p) as Record<string, number>;
    expect(first.cache_creation_input_tokens).toBeGreaterThan(4096);
    expect(second.cached_input_tokens).toBeGreaterThan(4096);
  });
});
