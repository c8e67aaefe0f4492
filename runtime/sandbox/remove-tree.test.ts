import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/temp.ts';
import { makeDeepTree } from './test-support/deep-tree.ts';
import { removeTree } from './remove-tree.ts';

describe('removeTree', () => {
  it('removes a 3,000-deep tree of 200-character names (rmSync throws ENAMETOOLONG on it)', () => {
    const root = join(tempDir(), 'ws');
    mkdirSync(root);
    expect(makeDeepTree(root, 3000, 200)).toBeGreaterThan(4096 * 100);
    expect(() => rmSync(root, { recursive: true, force: true })).toThrow(/ENAMETOOLONG/);
    removeTree(root);
    expect(existsSync(root)).toBe(false);
  });

  it('removes files, symlinks and empty directories, and is a no-op on a missing path', () => {
    const root = join(tempDir(), 'ws');
    mkdirSync(join(root, 'a/b/c'), { recursive: true });
    mkdirSync(join(root, 'empty'));
    writeFileSync(join(root, 'a/b/c/f.txt'), 'x');
    writeFileSync(join(root, 'top.txt'), 'x');
    symlinkSync('/etc', join(root, 'a/out'));
    removeTree(root);
    expect(existsSync(root)).toBe(false);
    expect(() => removeTree(root)).not.toThrow();
  });
});
