import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inputChanges, reconcileRunInputs, runInputs, treeDigest } from './run-inputs.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'run-inputs-'));

/** Writes `files` (relative path → content) under a fresh dir, in the given order. */
function tree(files: [string, string][]): string {
  const root = tmp();
  for (const [p, c] of files) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), c);
  }
  return root;
}

const fileMap = fc.dictionary(fc.constantFrom('a.py', 'b.txt', 'sub/c.py', 'sub/d/e.json', 'x'), fc.string({ maxLength: 8 }), { maxKeys: 5 });

describe('treeDigest', () => {
  it('two trees have one digest exactly when they hold the same files with the same bytes, whatever the order they were written in', () => {
    fc.assert(
      fc.property(fileMap, fileMap, (a, b) => {
        const ta = tree(Object.entries(a));
        const tb = tree(Object.entries(b).reverse());
        try {
          const same = JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());
          expect(treeDigest(ta) === treeDigest(tb)).toBe(same);
        } finally {
          rmSync(ta, { recursive: true });
          rmSync(tb, { recursive: true });
        }
      }),
      { numRuns: 60 },
    );
  });

  it('sees an exec bit, an empty directory and a symlink target', () => {
    const root = tree([['run.sh', 'echo hi\n']]);
    const base = treeDigest(root);
    chmodSync(join(root, 'run.sh'), 0o755);
    const exec = treeDigest(root);
    expect(exec).not.toBe(base);
    mkdirSync(join(root, 'empty'));
    const dir = treeDigest(root);
    expect(dir).not.toBe(exec);
    symlinkSync('run.sh', join(root, 'link'));
    const link = treeDigest(root);
    rmSync(join(root, 'link'));
    symlinkSync('other.sh', join(root, 'link'));
    expect(treeDigest(root)).not.toBe(link);
  });
});

describe('inputChanges', () => {
  it('names each changed part, the commit with both short shas, and parts that came or went', () => {
    const before = new Map([
      ['commit', 'feedfacefeedfacefeedface'],
      ['w workload.yaml', '1'],
      ['w check/', '2'],
      ['gone workspace/', '3'],
    ]);
    const now = new Map([
      ['commit', '2c43aae4d10b6eff7c503e7f'],
      ['w workload.yaml', '1'],
      ['w check/', '9'],
      ['new sim script', '4'],
    ]);
    expect(inputChanges(before, now)).toEqual(['commit: feedfacefeed -> 2c43aae4d10b', 'w check/ changed', 'new sim script: not recorded before', 'gone workspace/: recorded before, gone now']);
    expect(inputChanges(now, now)).toEqual([]);
  });

  it('a fresh run records its inputs; a resume on the same inputs passes, on other inputs refuses unless accepted, then records the new ones', () => {
    const db = new Database(':memory:');
    const ws = tree([['a.py', 'x = 1\n']]);
    const w = { name: 'w', dir: tmp(), workspaceDir: ws, checkDir: null, simScriptPath: null };
    const o = { dbPath: 'r.db', resume: false, acceptChanged: false };
    expect(reconcileRunInputs(db, 'run_1', runInputs([w], 'aaa'), o)).toEqual([]);
    expect(reconcileRunInputs(db, 'run_1', runInputs([w], 'aaa'), { ...o, resume: true })).toEqual([]);
    writeFileSync(join(ws, 'a.py'), 'x = 2\n');
    expect(() => reconcileRunInputs(db, 'run_1', runInputs([w], 'aaa'), { ...o, resume: true })).toThrow(/--resume r\.db: what the run's reps were judged with has changed since it started:\n {2}w workspace\/ changed\n/);
    expect(reconcileRunInputs(db, 'run_1', runInputs([w], 'bbb'), { ...o, resume: true, acceptChanged: true })).toEqual(['commit: aaa -> bbb', 'w workspace/ changed']);
    expect(reconcileRunInputs(db, 'run_1', runInputs([w], 'bbb'), { ...o, resume: true })).toEqual([]);
    // A DB written before inputs were recorded: resume cannot tell, so it refuses unless accepted.
    expect(() => reconcileRunInputs(db, 'run_old', runInputs([w], 'bbb'), { ...o, resume: true })).toThrow(/not recorded \(the DB was written by an older bench\)/);
  });
});
