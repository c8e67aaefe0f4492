// `analyze --db-path` tells a matrix DB from a trace DB and reads the trace DB on one SQLite connection: a second
// open of the same file was ~1 ms of a cold analyze.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { bench, tempDir } from '../support/cli.ts';
import { sharedRun } from '../support/shared-run.ts';

const opened = vi.hoisted(() => [] as unknown[]);
const prepared = vi.hoisted(() => [] as string[]);
vi.mock('better-sqlite3', async (importOriginal) => {
  const m = await importOriginal<{ default: new (...args: unknown[]) => object }>();
  // Every connection made, by the file it names.
  const Counting = new Proxy(m.default, {
    construct(target, args: unknown[]) {
      opened.push(args[0]);
      const db = Reflect.construct(target, args) as { prepare(sql: string): unknown };
      // Every statement prepared on it, by its SQL.
      const prepare = db.prepare.bind(db);
      db.prepare = (sql: string) => {
        prepared.push(sql);
        return prepare(sql);
      };
      return db;
    },
  });
  return { ...m, default: Counting };
});

describe('analyze opens the trace DB once', () => {
  let db: string;
  beforeAll(async () => {
    db = await sharedRun(['--workload', 'fix-a-bug-small', '--workload', 'multi-step-with-delegation', '--quiet'], { PATH: process.env.PATH });
  }, 300_000);

  it('for the check of its kind and the report', async () => {
    opened.length = 0;
    const json = join(tempDir('analyze-one-'), 'report.json');
    const r = await bench(['analyze', '--skip-execute', '--db-path', db, '--json', json]);
    expect(r.stderr).toBe('');
    expect(existsSync(json)).toBe(true);
    expect(opened.filter((p) => p === db)).toHaveLength(1);
  });

  it("and reads the run's workload_runs rows once: the check hands the records it parsed to the report", async () => {
    prepared.length = 0;
    const r = await bench(['analyze', '--skip-execute', '--db-path', db, '--json', join(tempDir('analyze-one-'), 'report.json')]);
    expect(r.stderr).toBe('');
    // Statements that read the rows' report cells (SELECT * or their JSON columns), not the session lists alone.
    const reads = prepared.filter((sql) => /FROM workload_runs/.test(sql) && /SELECT \*|assertions_json/.test(sql));
    expect(reads).toHaveLength(1);
  });

  it("and leaves the folder of the DB and of its pattern store as it found them: no -wal or -shm beside either", async () => {
    const dir = dirname(db);
    const walFiles = (names: string[]) => names.filter((n) => /-(wal|shm)$/.test(n));
    // A copy may carry the two files an earlier reader of the shared run left: the last reader to close removes them.
    const before = readdirSync(dir).sort();
    const r = await bench(['analyze', '--skip-execute', '--db-path', db, '--patterns-db-path', join(dir, 'run.patterns.db')]);
    expect(r.stderr).toBe('');
    const after = readdirSync(dir).sort();
    expect(walFiles(after)).toEqual([]);
    expect(after).toEqual(before.filter((n) => !walFiles([n]).length));
    expect(after).toEqual(expect.arrayContaining(['run.db', 'run.json', 'run.patterns.db']));
  });

  it('and still checks --json before saying why a file is no trace DB', async () => {
    const dir = tempDir('analyze-one-');
    const json = join(dir, 'exists.json');
    writeFileSync(json, '{}');
    const missing = await bench(['analyze', '--skip-execute', '--db-path', join(dir, 'none.db'), '--json', json]);
    expect(missing.stderr).toMatch(/--json names a file that already exists/);
    writeFileSync(join(dir, 'text.db'), 'not sqlite');
    const text = await bench(['analyze', '--skip-execute', '--db-path', join(dir, 'text.db')]);
    expect(text.stderr).toMatch(/not a SQLite trace DB/);
  });
});
