// A trace DB in a folder the reader cannot write (another user's run, a CI artifact on a read-only mount): analyze
// reads a rollback-journal DB there on a read-only connection, and a WAL DB (which SQLite cannot read in place without
// making its -shm file beside it) from a copy in memory, leaving the folder as it was; a WAL DB whose -wal file holds
// commits not yet in the file cannot be copied so, and is refused with what to do. The reader is a child process
// without the right to write there: as root, one without CAP_DAC_OVERRIDE (root otherwise writes anywhere).
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bench, REPO_ROOT, tempDir } from '../support/cli.ts';
import { sharedRun } from '../support/shared-run.ts';

const locked: string[] = [];
afterEach(() => locked.splice(0).forEach((d) => chmodSync(d, 0o755)));

const AS_ROOT = process.getuid?.() === 0;
const WITHOUT_DAC = ['setpriv', '--bounding-set', '-dac_override,-dac_read_search'];
/** Whether this root may start a process without CAP_DAC_OVERRIDE (a container without CAP_SETPCAP may not). */
const canDropOverride = !AS_ROOT || spawnSync(WITHOUT_DAC[0]!, [...WITHOUT_DAC.slice(1), 'true']).status === 0;

/** `analyze ARGS` in a process that may read but not write a folder it does not own the rights to (see above). */
function analyzeWithoutWriteRights(args: string[]) {
  const node = [process.execPath, join(REPO_ROOT, 'bin', 'analyze.cjs'), ...args];
  const [cmd, ...rest] = AS_ROOT ? [...WITHOUT_DAC, ...node] : node;
  const r = spawnSync(cmd!, rest, { cwd: REPO_ROOT, encoding: 'utf8', env: { PATH: process.env.PATH } });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A copy of the shared run's trace DB alone in a folder of its own, in `mode`, then made read-only. */
function lockedCopy(source: string, mode: 'wal' | 'delete'): { dir: string; db: string; bytes: Buffer } {
  const dir = join(tempDir('ro-folder-'), 'artifact');
  mkdirSync(dir);
  const db = join(dir, 'run.db');
  copyFileSync(source, db);
  const w = new Database(db);
  w.pragma(`journal_mode = ${mode}`);
  w.close();
  expect(readdirSync(dir)).toEqual(['run.db']);
  chmodSync(dir, 0o555);
  locked.push(dir);
  return { dir, db, bytes: readFileSync(db) };
}

describe.skipIf(!canDropOverride)('analyze on a DB in a folder it cannot write (skipped only where root cannot give up CAP_DAC_OVERRIDE)', () => {
  let source: string;
  beforeAll(async () => {
    source = await sharedRun(['--workload', 'fix-a-bug-small', '--workload', 'multi-step-with-delegation', '--quiet'], { PATH: process.env.PATH });
  }, 300_000);

  it('a rollback-journal DB is read on a read-only connection: the report is written elsewhere, the folder and the file stay as they were', () => {
    const { dir, db, bytes } = lockedCopy(source, 'delete');
    const json = join(tempDir('ro-out-'), 'report.json');
    const r = analyzeWithoutWriteRights(['--skip-execute', '--db-path', db, '--json', json]);
    expect([0, 1], r.stderr).toContain(r.code);
    expect(JSON.parse(readFileSync(json, 'utf8')).workloads.length).toBeGreaterThan(0);
    expect(readdirSync(dir)).toEqual(['run.db']);
    expect(readFileSync(db).equals(bytes)).toBe(true);
  });

  it('a WAL DB is read from a copy in memory: the same report as read in place, the folder and the file as they were', async () => {
    const { dir, db, bytes } = lockedCopy(source, 'wal');
    const json = join(tempDir('ro-out-'), 'report.json');
    const r = analyzeWithoutWriteRights(['--skip-execute', '--db-path', db, '--json', json]);
    expect([0, 1], r.stderr).toContain(r.code);
    expect(readdirSync(dir)).toEqual(['run.db']);
    expect(readFileSync(db).equals(bytes)).toBe(true);
    // The same figures as the shared run read where it can be written (paths and the run's own DB path aside).
    const here = join(tempDir('ro-out-'), 'report.json');
    expect((await bench(['analyze', '--skip-execute', '--db-path', source, '--json', here])).code).toBe(r.code);
    const figures = (p: string) => {
      const report = JSON.parse(readFileSync(p, 'utf8'));
      return { headline: report.headline, aggregate: report.aggregate, workloads: report.workloads };
    };
    expect(figures(json)).toEqual(figures(here));
  });

  it('a WAL DB whose -wal holds commits not yet in the file is refused (exit 2), naming the file, why and what to do', () => {
    const dir = join(tempDir('ro-folder-'), 'artifact');
    mkdirSync(dir);
    const db = join(dir, 'run.db');
    copyFileSync(source, db);
    // A writer that commits and has not checkpointed: the commit is in run.db-wal alone. Copied without its -shm, as
    // a folder left by a writer that died and then copied, or mounted, would hold it.
    const writer = new Database(db);
    writer.pragma('journal_mode = wal');
    writer.pragma('wal_autocheckpoint = 0');
    writer.exec("CREATE TABLE late (x); INSERT INTO late VALUES ('committed to the wal only')");
    const held = join(tempDir('ro-folder-'), 'held');
    mkdirSync(held);
    for (const f of ['run.db', 'run.db-wal']) copyFileSync(join(dir, f), join(held, f));
    writer.close();
    chmodSync(held, 0o555);
    locked.push(held);
    const json = join(tempDir('ro-out-'), 'report.json');
    const r = analyzeWithoutWriteRights(['--skip-execute', '--db-path', join(held, 'run.db'), '--json', json]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${join(held, 'run.db')}: cannot be read from here: it is in WAL mode`);
    expect(r.stderr).toContain('run.db-wal beside it holds commits not yet in the file');
    expect(r.stderr).toContain('Make the folder writable, or copy the DB');
    expect(readdirSync(held).sort()).toEqual(['run.db', 'run.db-wal']);
    expect(existsSync(json)).toBe(false);
  });
});
