import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/temp.ts';
import { makeDeepTree } from '../../runtime/sandbox/test-support/deep-tree.ts';
import { createRunWorkDir, OWNER_FILE, processStartTime, sweepDeadWorkDirs, workRoot } from './run-workdir.ts';

/** A pid that has exited: free, or reused by an unrelated process (which the owner's start time then tells apart). */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

describe('run work dirs', () => {
  it("the sweep removes a dead process's dir (hidden checks included) with a warning, and leaves a live one's", () => {
    const tmp = tempDir();
    const left = join(workRoot(tmp), `run_X.${deadPid()}`);
    mkdirSync(join(left, 'metis-bench-1/workspace/.bench-check'), { recursive: true });
    writeFileSync(join(left, 'metis-bench-1/workspace/.bench-check/test_hidden.py'), 'secret');
    const mine = createRunWorkDir('run_Y', tmp);
    const swept = sweepDeadWorkDirs(tmp);
    expect(swept.removed).toEqual([left]);
    expect(swept.warnings).toEqual([expect.stringContaining(`removed ${left}, left by a run whose process`)]);
    expect(existsSync(left)).toBe(false);
    expect(existsSync(mine)).toBe(true);
    expect(mine.endsWith(`run_Y.${process.pid}`)).toBe(true);
  });

  it('each run dir names its owner: pid and start time', () => {
    const dir = createRunWorkDir('run_Z', tempDir());
    const owner = JSON.parse(readFileSync(join(dir, OWNER_FILE), 'utf8')) as unknown;
    expect(owner).toEqual({ pid: process.pid, started: processStartTime(process.pid), run_id: 'run_Z' });
    expect(processStartTime(process.pid)).toEqual(expect.any(Number));
  });

  it('a dir whose owner pid now belongs to another process (its start time differs) is swept', () => {
    const tmp = tempDir();
    const reused = join(workRoot(tmp), `run_R.${process.pid}-old`);
    mkdirSync(reused, { recursive: true });
    writeFileSync(join(reused, OWNER_FILE), JSON.stringify({ pid: process.pid, started: processStartTime(process.pid)! - 1, run_id: 'run_R' }));
    expect(sweepDeadWorkDirs(tmp).removed).toEqual([reused]);
  });

  it("a dead run's 500-deep tree of 200-character names is swept, not fatal (rmSync threw ENAMETOOLONG at every later start)", () => {
    const tmp = tempDir();
    const left = join(workRoot(tmp), `run_D.${deadPid()}`);
    mkdirSync(join(left, 'metis-bench-1', 'workspace'), { recursive: true });
    makeDeepTree(join(left, 'metis-bench-1', 'workspace'), 500, 200);
    expect(sweepDeadWorkDirs(tmp).removed).toEqual([left]);
    expect(existsSync(left)).toBe(false);
  });

  it('a sweep with no work root is a no-op', () => {
    expect(sweepDeadWorkDirs(tempDir())).toEqual({ removed: [], warnings: [] });
  });
});
