import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../core/logger.ts';
import { createWorkspaceFixture } from '../tools/test-support/workspace-fixture.ts';
import { probeBwrap, runCommand, type RunCommandOptions } from './index.ts';

const hostPath = process.env.PATH ?? '';
const hasBwrap = (await probeBwrap(hostPath)) !== null;
const modes = hasBwrap ? (['bwrap', 'none'] as const) : (['none'] as const);

// Outside /tmp on purpose: bwrap's private /tmp would hide anything under /tmp whatever the binds.
let outside: string;
let home: string;
let checkFile: string;
const saved: Record<string, string | undefined> = {};
const SECRET = 'sk-secret-xyz';

beforeAll(() => {
  outside = mkdtempSync('/var/tmp/metis-isolation-');
  home = join(outside, 'home');
  mkdirSync(home);
  writeFileSync(join(home, 'secret.txt'), 'HOME_SECRET_MARKER\n');
  mkdirSync(join(outside, 'workloads', 'w', 'check'), { recursive: true });
  checkFile = join(outside, 'workloads', 'w', 'check', 'test_hidden.py');
  writeFileSync(checkFile, '# CHECK_SECRET_MARKER\n');
  for (const [k, v] of Object.entries({ ANTHROPIC_API_KEY: SECRET, HOME: home })) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
});
afterAll(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(outside, { recursive: true, force: true });
});

async function run(command: string, sandbox: 'bwrap' | 'none', extra: Partial<RunCommandOptions> = {}): Promise<string> {
  const fx = createWorkspaceFixture({ 'a.txt': 'a\n' });
  try {
    const r = await runCommand(command, { cwd: fx.ws, timeoutMs: 60_000, logger: createMemoryLogger(), sandbox, hostPath, hide: [join(outside, 'workloads')], ...extra });
    expect(r.sandbox).toBe(sandbox);
    return r.output;
  } finally {
    fx.cleanup();
  }
}

describe.each(modes)('what a command sees of the harness (sandbox=%s)', (mode) => {
  it('neither its environment nor its direct parent holds the harness\'s secrets or names the hidden check', async () => {
    const out = await run('env; echo ---; tr "\\0" "\\n" < /proc/$PPID/environ; echo ---; tr "\\0" " " < /proc/$PPID/cmdline', mode);
    expect(out).not.toContain(SECRET);
    expect(out).not.toContain('ANTHROPIC_API_KEY');
    expect(out).not.toContain(join(outside, 'workloads'));
    // The direct parent is the launcher shell, not the harness.
    expect(out.split('---')[2]).toMatch(/^\s*\/bin\/sh -c /);
  });

  it('$HOME is a fresh empty directory, not the user\'s home', async () => {
    const out = await run('ls -A "$HOME" | wc -l; cat "$HOME/secret.txt" 2>&1; echo "$HOME"', mode);
    expect(out).not.toContain('HOME_SECRET_MARKER');
    expect(out.split('\n')[0]!.trim()).toBe('0');
    expect(out).not.toContain(home);
  });

  it.skipIf(mode !== 'bwrap')('under bwrap: the user\'s home, the hidden check and the harness\'s processes are not there at all', async () => {
    const out = await run(`cat ${join(home, 'secret.txt')} 2>&1; cat ${checkFile} 2>&1; ls /root /home ${outside} 2>&1; cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n" | grep -c ANTHROPIC; ls /proc | grep -c '^[0-9]'`, mode);
    expect(out).not.toContain('HOME_SECRET_MARKER');
    expect(out).not.toContain('CHECK_SECRET_MARKER');
    expect(out).toMatch(/No such file or directory/);
    const lines = out.trim().split('\n');
    expect(lines.at(-2)).toBe('0'); // no process in the sandbox's /proc carries the key
    expect(Number(lines.at(-1))).toBeLessThan(10); // only the sandbox's own few processes
  });
});
