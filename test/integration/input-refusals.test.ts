import { copyFileSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import { bench, tempDir } from '../support/cli.ts';
import { copyWorkloads } from '../support/workload-variants.ts';

// Issue 12 item 7: the smaller refusals and notes, each as a user meets it on the command line.
const env = { PATH: process.env.PATH };
const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at /);

describe('bad inputs are refused with the file and the fix', () => {
  it('a workload.yaml that is not UTF-8 is refused (exit 2) with its path, line and byte offset', async () => {
    const dir = copyWorkloads(['write-a-doc-from-notes']);
    const file = join(dir, 'write-a-doc-from-notes', 'workload.yaml');
    const text = readFileSync(file, 'utf8').replace('description: ', 'description: caf\u00e9 ');
    const at = Buffer.byteLength(text.slice(0, text.indexOf('caf') + 3), 'utf8');
    writeFileSync(file, Buffer.from(text, 'latin1'));
    for (const args of [['run', '--workloads-dir', dir, '--db-path', join(tempDir(), 'x.db')], ['validate', join(dir, 'write-a-doc-from-notes')]]) {
      const r = await bench(args, { env });
      expect(r.code, args[0]).toBe(2);
      expect(r.stderr).toContain(`${file}:`);
      expect(r.stderr).toContain('not valid UTF-8');
      expect(r.stderr).toContain(`byte offset ${at}`);
      noStack(r.stderr);
    }
  }, 120_000);

  it('with --include-marginal and no workload at all, the message does not suggest --include-marginal', async () => {
    const empty = join(tempDir(), 'workloads');
    mkdirSync(empty);
    const r = await bench(['run', '--workloads-dir', empty, '--include-marginal', '--db-path', join(tempDir(), 'e.db')], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no workload to run');
    expect(r.stderr).toContain('--workloads-dir');
    expect(r.stderr).not.toContain('Pass --include-marginal');
  });
});

describe('trace DBs analyze cannot read', () => {
  let db: string;
  beforeAll(async () => {
    db = join(tempDir(), 'ok.db');
    const r = await bench(['run', '--workload', 'write-a-doc-from-notes', '--db-path', db, '--quiet'], { env });
    expect(r.code).not.toBe(2);
  }, 120_000);

  it('another schema version: exit 2, the file named, what to do', async () => {
    const other = db.replace(/ok\.db$/, 'v99.db');
    copyFileSync(db, other);
    const h = new Database(other);
    h.pragma('user_version = 99');
    h.close();
    const r = await bench(['analyze', '--skip-execute', '--db-path', other], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${other}: trace schema version 99, but this Metis bench reads versions 1 and 2 (and writes 2)`);
    expect(r.stderr).toContain('bench run');
    noStack(r.stderr);
  });

  it('corrupt pages: exit 2, the file named, restore or re-run; no SqliteError stack', async () => {
    const broken = db.replace(/ok\.db$/, 'corrupt.db');
    copyFileSync(db, broken);
    const size = statSync(broken).size;
    const fd = openSync(broken, 'r+');
    for (let off = 4096; off < size; off += 8192) writeSync(fd, Buffer.alloc(4096, 0xab), 0, 4096, off);
    closeSync(fd);
    const r = await bench(['analyze', '--skip-execute', '--db-path', broken], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${broken}: the trace DB is damaged`);
    expect(r.stderr).toContain('Restore it from a copy');
    expect(r.stderr).not.toContain('SqliteError');
    noStack(r.stderr);
  });
});

describe('run notes', () => {
  it('--workload X --workload X runs X once (k = 1) and says so', async () => {
    const db = join(tempDir(), 'dup.db');
    const r = await bench(['run', '--workload', 'write-a-doc-from-notes', '--workload', 'write-a-doc-from-notes', '--db-path', db], { env });
    expect(r.code).not.toBe(2);
    const report = JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;
    expect(report.workloads).toHaveLength(1);
    expect(report.workloads[0]!.reps).toHaveLength(1);
    expect(report.workloads[0]!.k).toBe(1);
    expect(report.warnings.join('\n')).toContain('--workload write-a-doc-from-notes given more than once: each runs once');
    expect(r.stdout).toContain('given more than once');
  }, 120_000);

  it('--max-cost stopping says so on the console: the bound, the spend so far, incomplete', async () => {
    const db = join(tempDir(), 'mc.db');
    const r = await bench(['run', '--workload', 'fix-a-bug-small', '--workload', 'write-a-doc-from-notes', '--max-cost', '0.02', '--width', '200', '--db-path', db], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/status: +incomplete \(stopped early in fix-a-bug-small, pass single, rep 1: --max-cost 0\.02: spent 0\.\d+/);
    expect(r.stdout).toContain('this report is incomplete');
  }, 120_000);
});
