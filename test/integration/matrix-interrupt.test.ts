import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from '../support/cli.ts';

// A matrix run is minutes of pure computation: before, it never yielded to the event loop, so Ctrl-C and
// SIGTERM printed "stopping" and the run went on to the end.
describe('SIGTERM during a matrix run', () => {
  it('stops within seconds, says no report was written and why, exits 2, and leaves no DB or JSON', { timeout: 300_000 }, async () => {
    const dir = tempDir();
    const db = join(dir, 'm.db');
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/bench.mjs'), 'run', '--workload', 'routellm-gsm8k', '--matrix-settings', 'unseen_tasks,new_workspace,online', '--db-path', db], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    const started = new Promise<void>((res) =>
      child.stderr.on('data', (b: Buffer) => {
        stderr += b.toString();
        if (stderr.includes('matrix routellm-gsm8k: unseen_tasks')) res();
      }),
    );
    const exited = new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
    await started;
    const t0 = Date.now();
    child.kill('SIGTERM');
    const code = await exited;
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(code).toBe(2);
    expect(stderr).toMatch(/interrupted: a matrix report is built from every fold, so none was written/);
    expect(existsSync(db)).toBe(false);
    expect(existsSync(db.replace(/\.db$/, '.json'))).toBe(false);
  });
});
