import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { bench, tempDir } from '../support/cli.ts';

describe('analyze --skip-execute refuses what it cannot read, with exit 2', () => {
  it('a missing file', async () => {
    const r = await bench(['analyze', '--skip-execute', '--db-path', '/nonexistent/x.db']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('/nonexistent/x.db: no such trace DB');
  });

  it('a file that is not SQLite', async () => {
    const p = join(tempDir(), 'junk.db');
    writeFileSync(p, 'this is not a database, just text that is long enough to have a header'.repeat(20));
    const r = await bench(['analyze', '--skip-execute', '--db-path', p]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${p}: not a SQLite trace DB`);
  });

  it('a trace DB with no benchmark runs in it', async () => {
    const p = join(tempDir(), 'empty.db');
    new Database(p).exec('CREATE TABLE events (id TEXT PRIMARY KEY)').close();
    const r = await bench(['analyze', '--skip-execute', '--db-path', p]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no benchmark runs in this trace DB');
  });
});
