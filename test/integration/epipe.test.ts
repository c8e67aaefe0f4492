import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/cli.ts';

/** Runs `bench ARGS` as a real process whose stdout reader closes after the first chunk, as `| head -1` does. */
function benchIntoClosedPipe(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'bench.mjs'), ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.stdout.once('data', () => child.stdout.destroy());
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('a reader that goes away (bench list | head)', () => {
  it('ends the command quietly: exit 0 and no EPIPE stack', async () => {
    // The table and the longer JSON listing both keep writing after the reader has gone.
    for (const args of [['list'], ['list', '--json']]) {
      const r = await benchIntoClosedPipe(args);
      expect(r.stderr).not.toMatch(/EPIPE|Unhandled 'error' event/);
      expect(r.code).toBe(0);
    }
  });
});
