import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/temp.ts';
import { createRunWorkDir, sweepDeadWorkDirs, workRoot } from './run-workdir.ts';

describe('run work dirs', () => {
  it("the sweep removes a dead process's dir (hidden checks included) and leaves a live one's", () => {
    const tmp = tempDir();
    // A process that has exited: its pid is free (or reused by an unrelated process, which the sweep then spares).
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    const left = join(workRoot(tmp), `run_X.${dead}`);
    mkdirSync(join(left, 'metis-bench-1/workspace/.bench-check'), { recursive: true });
    writeFileSync(join(left, 'metis-bench-1/workspace/.bench-check/test_hidden.py'), 'secret');
    const mine = createRunWorkDir('run_Y', tmp);
    const removed = sweepDeadWorkDirs(tmp);
    expect(removed).toContain(left);
    expect(existsSync(left)).toBe(false);
    expect(existsSync(mine)).toBe(true);
    expect(mine.endsWith(`run_Y.${process.pid}`)).toBe(true);
  });

  it('a sweep with no work root is a no-op', () => {
    expect(sweepDeadWorkDirs(tempDir())).toEqual([]);
  });
});
