import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mountCheckFiles, withWorkspaceCopy } from './hermetic-workspace.ts';
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

  it('mounts check files into the copy only', async () => {
    const src = fixture();
    const check = join(tempDir(), 'check');
    mkdirSync(check);
    writeFileSync(join(check, 'test_x.py'), 'pass\n');
    await withWorkspaceCopy(src, async (root) => {
      mountCheckFiles(check, root, '.bench-check');
      expect(existsSync(join(root, '.bench-check', 'test_x.py'))).toBe(true);
    });
    expect(existsSync(join(src, '.bench-check'))).toBe(false);
  });
});
