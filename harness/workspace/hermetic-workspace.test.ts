import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SetupError } from '../errors.ts';
import { withWorkspaceCopy, WorkspaceCleanupError } from './hermetic-workspace.ts';
import { makeDeepTree } from '../../runtime/sandbox/test-support/deep-tree.ts';
import { tempDir } from '../../test/support/temp.ts';

function fixture(): string {
  const dir = join(tempDir(), 'workspace');
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'src', 'a.py'), 'x = 1\n');
  return dir;
}

describe('hermetic workspace (benchmark.md §10.1 test 4)', () => {
  it('edits in the copy leave the in-tree fixture unchanged, and the copy is removed', async () => {
    const src = fixture();
    let seen = '';
    await withWorkspaceCopy(src, async (root) => {
      seen = root;
      writeFileSync(join(root, 'src', 'a.py'), 'x = 2\n');
      writeFileSync(join(root, 'new.txt'), 'n');
      expect(readFileSync(join(root, 'src', 'a.py'), 'utf8')).toBe('x = 2\n');
    });
    expect(readFileSync(join(src, 'src', 'a.py'), 'utf8')).toBe('x = 1\n');
    expect(existsSync(join(src, 'new.txt'))).toBe(false);
    expect(existsSync(seen)).toBe(false);
  });

  it('removes a copy the run nested 500 levels deep with 200-character names (rmSync threw ENAMETOOLONG)', async () => {
    let seen = '';
    const out = await withWorkspaceCopy(fixture(), async (root) => {
      seen = root;
      makeDeepTree(root, 500, 200);
      return 'done';
    });
    expect(out).toBe('done');
    expect(existsSync(seen)).toBe(false);
  });

  it("a copy that cannot be removed gives the run's result back inside a WorkspaceCleanupError naming the dir", async () => {
    const failing = () => {
      throw Object.assign(new Error('EBUSY: resource busy or locked'), { code: 'EBUSY' });
    };
    const err = await withWorkspaceCopy(fixture(), async () => 'the record', undefined, failing).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkspaceCleanupError);
    expect((err as WorkspaceCleanupError<string>).result).toBe('the record');
    expect(String(err)).toMatch(/the rep's workspace copy \S+metis-bench-\S+ could not be removed: EBUSY/);
  });

  it('removes the copy even when the run throws', async () => {
    let seen = '';
    await expect(
      withWorkspaceCopy(fixture(), async (root) => {
        seen = root;
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(existsSync(seen)).toBe(false);
  });

  it('refuses a symlinked workspace/ before copying anything, naming it (exit 2)', async () => {
    const real = fixture();
    const link = join(tempDir(), 'workspace');
    symlinkSync(real, link);
    let ran = false;
    const err = await withWorkspaceCopy(link, async () => {
      ran = true;
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SetupError);
    expect((err as Error).message).toContain(`${link}: workspace/ is a symlink`);
    expect(ran).toBe(false);
  });

  it('refuses a link inside that leads out of workspace/ (into ../check, or absolute), and keeps one that stays inside', async () => {
    const src = fixture();
    mkdirSync(join(src, '..', 'check'));
    writeFileSync(join(src, '..', 'check', 'test_x.py'), 'pass\n');
    symlinkSync('../../check/test_x.py', join(src, 'src', 'peek.py'));
    await expect(withWorkspaceCopy(src, async () => {})).rejects.toThrow(/src\/peek\.py: a symlink in the fixture points outside workspace\//);
    rmSync(join(src, 'src', 'peek.py'));
    symlinkSync(join(src, 'src', 'a.py'), join(src, 'abs.py'));
    await expect(withWorkspaceCopy(src, async () => {})).rejects.toThrow(/abs\.py: a symlink in the fixture is absolute/);
    rmSync(join(src, 'abs.py'));
    symlinkSync('src/a.py', join(src, 'alias.py'));
    await withWorkspaceCopy(src, async (root) => {
      writeFileSync(join(root, 'alias.py'), 'x = 3\n'); // through the copied link: lands in the copy
    });
    expect(readFileSync(join(src, 'src', 'a.py'), 'utf8')).toBe('x = 1\n');
  });
});
