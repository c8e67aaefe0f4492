import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/cli.ts';

const LAUNCH = pathToFileURL(join(REPO_ROOT, 'bin', 'launch.cjs')).href;

/** Runs an ES module that imports exitWhenIdle from bin/launch.cjs; its stdout and stderr go through pipes. */
function run(body: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', `import { exitWhenIdle } from '${LAUNCH}';\n${body}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

describe('a command that is done ends its process at once, and only then (bin/launch.cjs exitWhenIdle)', () => {
  it('with nothing left to do it exits there, with the code, everything written', async () => {
    const r = await run(`process.on('exit', () => process.stderr.write('exit;'));
process.stdout.write('x'.repeat(1000));
exitWhenIdle(3);
process.stderr.write('after');`);
    expect(r.code).toBe(3);
    expect(r.out).toBe('x'.repeat(1000));
    // The process ended inside exitWhenIdle: the line after it never ran.
    expect(r.err).toBe('exit;');
  });

  it('output the pipe has not taken yet (1 MiB) is all delivered, with the code', async () => {
    const r = await run(`process.stdout.write('x'.repeat(1 << 20));
exitWhenIdle(5);`);
    expect(r.out).toHaveLength(1 << 20);
    expect(r.code).toBe(5);
  });

  it('work still pending (a timer) is not cut short: the process ends when it is done, with the code', async () => {
    const r = await run(`setTimeout(() => process.stdout.write('late'), 50);
exitWhenIdle(4);
process.stdout.write('after;');`);
    expect(r.out).toBe('after;late');
    expect(r.code).toBe(4);
  });

  it("a library that flushes on 'beforeExit' still gets to", async () => {
    const r = await run(`process.once('beforeExit', () => process.stdout.write('flushed'));
exitWhenIdle(0);`);
    expect(r.out).toBe('flushed');
    expect(r.code).toBe(0);
  });
});
