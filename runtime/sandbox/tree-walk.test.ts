import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/temp.ts';
import { diskUsage } from './resource-limits.ts';
import { makeDeepTree } from './test-support/deep-tree.ts';
import { treeLimitMessage, walkTree } from './tree-walk.ts';

const NO_BOUNDS = { maxEntries: Infinity, maxDepth: Infinity };

/** Every path under `root`, by plain recursion: the reference the walk must agree with. */
function reference(root: string): string[] {
  const out: string[] = [];
  const visit = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      out.push(relative(root, p));
      if (statSync(p).isDirectory()) visit(p);
    }
  };
  visit(root);
  return out.sort();
}

describe('walkTree', () => {
  it('meets every entry once, with its relative path and depth, for any small tree (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 4 }), { maxLength: 12 }), (paths) => {
        const root = tempDir();
        for (const p of paths) {
          mkdirSync(join(root, ...p.slice(0, -1)), { recursive: true });
          try {
            writeFileSync(join(root, ...p.slice(0, -1), `${p.at(-1)}.txt`), 'x');
          } catch {
            // a file name taken by a directory: skip
          }
        }
        const seen: string[] = [];
        const r = walkTree([root], NO_BOUNDS, {
          entry: (e) => {
            seen.push(e.rel());
            expect(e.depth).toBe(e.rel().split('/').length);
          },
        });
        expect(seen.sort()).toEqual(reference(root));
        expect(r).toEqual({ entries: seen.length, over: null });
      }),
      { numRuns: 30 },
    );
  });

  it('stops at the first entry past maxEntries, naming workspace_max_files', () => {
    const root = tempDir();
    for (let i = 0; i < 500; i++) writeFileSync(join(root, `f${i}`), '');
    expect(walkTree([root], { maxEntries: 100, maxDepth: 256 }, { entry: () => {} })).toEqual({ entries: 101, over: 'workspace_max_files' });
    expect(walkTree([root], { maxEntries: 500, maxDepth: 256 }, { entry: () => {} })).toEqual({ entries: 500, over: null });
  });

  it('stops at an entry deeper than maxDepth, naming workspace_max_depth', () => {
    const root = tempDir();
    makeDeepTree(root, 300, 10);
    expect(walkTree([root], { maxEntries: 100_000, maxDepth: 256 }, { entry: () => {} }).over).toBe('workspace_max_depth');
    expect(walkTree([root], { maxEntries: 100_000, maxDepth: 301 }, { entry: () => {} })).toEqual({ entries: 301, over: null });
    expect(treeLimitMessage('workspace_max_depth', 256)).toBe('resource limit workspace_max_depth (256) exceeded: the workspace nests entries more than 256 directory levels deep (raise it with --limit workspace_max_depth=N)');
  });

  it('counts the bytes at the bottom of a tree deeper than PATH_MAX (the old walk skipped them: lstat threw ENAMETOOLONG)', () => {
    const root = tempDir();
    makeDeepTree(root, 100, 200);
    const u = diskUsage([root]);
    expect(u.entries).toBe(101);
    // 100 directories and the 7-byte leaf file, counted by apparent size.
    expect(u.apparent).toBeGreaterThanOrEqual(100 * statSync(root).size + 7);
  });
});
