import { createHash } from 'node:crypto';
import { cpSync, lstatSync, readdirSync, readFileSync, readlinkSync, renameSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bench, REPO_ROOT, tempDir } from '../support/cli.ts';

/** SHA-256 over every path, type, mode and content (or link target) under `dir`, in sorted order. */
function treeHash(dir: string): string {
  const h = createHash('sha256');
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = lstatSync(p);
      h.update(`${relative(dir, p)}\0${st.mode}\0`);
      if (st.isSymbolicLink()) h.update(readlinkSync(p));
      else if (st.isDirectory()) walk(p);
      else h.update(readFileSync(p));
    }
  };
  walk(dir);
  return h.digest('hex');
}

function copyOf(name: string): string {
  const dir = join(tempDir('bench-fixture-'), 'workloads');
  cpSync(join(REPO_ROOT, 'workloads', name), join(dir, name), { recursive: true });
  return dir;
}

describe('fixtures are immutable (issue 12 item 3)', () => {
  it('a run writes nothing under --workloads-dir: the tree hashes the same before and after', { timeout: 120_000 }, async () => {
    const dir = copyOf('fix-a-bug-small');
    const before = treeHash(dir);
    const db = join(tempDir(), 'r.db');
    const r = await bench(['run', '--workloads-dir', dir, '--workload', 'fix-a-bug-small', '--db-path', db, '--seed-passes', '2'], { env: { PATH: process.env.PATH } });
    expect(r.code, r.stderr).not.toBe(2);
    expect(treeHash(dir)).toBe(before);
  });

  it('a symlinked workspace/ is refused with exit 2 and its path, by validate and by run, and the real fixture is untouched', { timeout: 120_000 }, async () => {
    const dir = copyOf('fix-a-bug-small');
    const ws = join(dir, 'fix-a-bug-small', 'workspace');
    const real = join(tempDir('bench-real-fixture-'), 'workspace');
    renameSync(ws, real);
    symlinkSync(real, ws);
    const before = treeHash(real);
    const v = await bench(['validate', '--workloads-dir', dir], { env: { PATH: process.env.PATH } });
    expect(v.code).toBe(2);
    expect(v.stderr).toContain(`${ws}: workspace/ is a symlink`);
    const r = await bench(['run', '--workloads-dir', dir, '--workload', 'fix-a-bug-small', '--db-path', join(tempDir(), 'r.db')], { env: { PATH: process.env.PATH } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${ws}: workspace/ is a symlink`);
    expect(treeHash(real)).toBe(before);
  });
});
