import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, connect, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../core/logger.ts';
import { createWorkspaceFixture, type WorkspaceFixture } from '../tools/test-support/workspace-fixture.ts';
import { probeBwrap } from './bwrap.ts';
import { NO_SANDBOX_WARNING, RootUnconfinedError, runCommand, SandboxUnavailableError, unshareSandboxWarning, type RunCommandOptions } from './run-command.ts';
import { unshareReadableHere } from './unshare.ts';
import { probeUnshare } from './unshare.ts';

// The test process is the edge: it may read the environment and hand PATH in.
const hostPath = process.env.PATH ?? '';
const bwrap = await probeBwrap(hostPath);
const bwrapNote = bwrap ? '' : ' (skipped: bubblewrap (bwrap) is not installed or cannot create namespaces here)';
const modes = bwrap ? (['bwrap', 'none'] as const) : (['none'] as const);

let fx: WorkspaceFixture;
beforeEach(() => {
  fx = createWorkspaceFixture({ 'hello.txt': 'hi\n' });
});
afterEach(() => fx.cleanup());

function opts(sandbox: 'bwrap' | 'none', extra: Partial<RunCommandOptions> = {}): RunCommandOptions {
  return { cwd: fx.ws, timeoutMs: 20_000, logger: createMemoryLogger(), sandbox, hostPath, ...extra };
}

/** Live (non-zombie) processes whose command line contains `marker`. */
function liveProcessesWith(marker: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
      if (cmdline.includes(marker) && state !== 'Z') found.push(Number(pid));
    } catch {
      // exited while we looked
    }
  }
  return found;
}

const SECRETS = { ANTHROPIC_API_KEY: 'sk-ant-test', OPENAI_API_KEY: 'sk-openai-test', GITHUB_TOKEN: 'ghp_test', MY_SECRET: 'hunter2' };

describe.each(modes)('runCommand with sandbox=%s', (mode) => {
  const saved: Record<string, string | undefined> = {};
  beforeAll(() => {
    for (const [k, v] of Object.entries(SECRETS)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
  });
  afterAll(() => {
    for (const k of Object.keys(SECRETS)) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });

  it('runs in the workspace with a from-scratch environment: no secrets, TZ=UTC, fixed locale and hash seed', async () => {
    const r = await runCommand('cat hello.txt && env', opts(mode));
    expect(r.sandbox).toBe(mode);
    expect(r.exitCode).toBe(0);
    const lines = r.output.split('\n');
    expect(lines[0]).toBe('hi');
    for (const [name, value] of Object.entries(SECRETS)) {
      expect(r.output).not.toContain(name);
      expect(r.output).not.toContain(value);
    }
    expect(lines).toContain('TZ=UTC');
    expect(lines).toContain('PYTHONHASHSEED=0');
    expect(lines).toContain('LC_ALL=C.UTF-8');
    expect(lines).toContain('PYTHONDONTWRITEBYTECODE=1');
    // A fresh empty home and temp dir, shown as ~ and $TMPDIR (their names are random).
    expect(lines).toContain('HOME=~');
    expect(lines).toContain('TMPDIR=$TMPDIR');
    expect(lines.find((l) => l.startsWith('PATH='))).toMatch(/(^|:)\/usr\/bin(:|$)/);
  });

  it('merges stdout and stderr in the order written and reports the exit code', async () => {
    const r = await runCommand('echo one; echo two >&2; echo three; exit 7', opts(mode));
    expect(r.output).toBe('one\ntwo\nthree\n');
    expect(r.exitCode).toBe(7);
    expect(r.timedOut).toBe(false);
  });

  it('caps output with a marker that counts the bytes cut', async () => {
    const r = await runCommand("head -c 100000 /dev/zero | tr '\\0' a", opts(mode, { maxOutputBytes: 1000 }));
    expect(r.truncated).toBe(true);
    expect(r.output).toContain('…[truncated 99000 bytes]');
    expect(r.output.replace(/\n…\[truncated \d+ bytes\]\n/, '')).toBe('a'.repeat(1000));
  });

  it('kills a command that overruns its timeout, children included', async () => {
    const marker = `31.${process.pid}${mode.length}`;
    const r = await runCommand(`sleep ${marker} & sh -c 'sleep ${marker}'; echo never`, opts(mode, { timeoutMs: 400 }));
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBeNull();
    expect(r.output).not.toContain('never');
    expect(liveProcessesWith(`sleep ${marker}`)).toEqual([]);
  });

  it('leaves no background process behind when the command exits', async () => {
    const marker = `32.${process.pid}${mode.length}`;
    const r = await runCommand(`sleep ${marker} & echo started`, opts(mode));
    expect(r).toMatchObject({ exitCode: 0, output: 'started\n', timedOut: false });
    expect(liveProcessesWith(`sleep ${marker}`)).toEqual([]);
  });

  it('stops when the caller aborts', async () => {
    const ac = new AbortController();
    const run = runCommand('sleep 30', opts(mode, { signal: ac.signal }));
    setTimeout(() => ac.abort(), 200);
    const r = await run;
    expect(r.cancelled).toBe(true);
    expect(r.exitCode).toBeNull();
  });
});

describe(`bwrap confinement${bwrapNote}`, () => {
  let server: Server;
  let port = 0;
  let outsideTmp: string;
  let outsideVar: string | null;
  beforeAll(async () => {
    server = createServer((s) => {
      s.on('error', () => {}); // clients here exit without closing politely
      s.end();
    });
    await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((res) => server.close(() => res())));
  beforeEach(() => {
    outsideTmp = mkdtempSync(join(tmpdir(), 'metis-outside-'));
    outsideVar = existsSync('/var/tmp') ? mkdtempSync('/var/tmp/metis-outside-') : null;
  });
  afterEach(() => {
    rmSync(outsideTmp, { recursive: true, force: true });
    if (outsideVar) rmSync(outsideVar, { recursive: true, force: true });
  });

  it.skipIf(!bwrap)('a command cannot write outside the workspace, but can inside it', async () => {
    const targets = [join(outsideTmp, 'pwned'), ...(outsideVar ? [join(outsideVar, 'pwned')] : []), join(fx.outside, 'pwned')];
    const cmd = targets.map((t) => `echo x > '${t}'`).join('; ') + '; echo ok > inside.txt';
    const r = await runCommand(cmd, opts('bwrap'));
    for (const t of targets) expect(existsSync(t), t).toBe(false);
    expect(readFileSync(join(fx.ws, 'inside.txt'), 'utf8')).toBe('ok\n');
    // The host's other directories are not even there: only the system directories are bound.
    if (outsideVar) expect(r.output).toMatch(/Directory nonexistent|Read-only file system/);
  });

  it.skipIf(!bwrap)('a command cannot reach the network, while the same connect works outside the sandbox', async () => {
    const probe = `node -e "require('net').connect(${port},'127.0.0.1').on('connect',()=>{console.log('CONNECTED');process.exit(0)}).on('error',(e)=>{console.log('FAILED',e.code);process.exit(3)})"`;
    // From the test process itself.
    await new Promise<void>((res, rej) => connect(port, '127.0.0.1').on('connect', function (this: ReturnType<typeof connect>) { this.destroy(); res(); }).on('error', rej));
    const unconfined = await runCommand(probe, opts('none'));
    expect(unconfined.output).toContain('CONNECTED');
    const confined = await runCommand(probe, opts('bwrap'));
    expect(confined.output).toContain('FAILED');
    expect(confined.exitCode).toBe(3);
  });
});

const hasUnshare = (await probeUnshare(hostPath)) !== null;
if (!hasUnshare) console.warn('[run-command.test] util-linux unshare cannot create namespaces here: the unshare fallback is skipped');

describe('without bwrap', () => {
  it.skipIf(!hasUnshare)('auto takes unshare when bwrap is missing and unshare works, and warns once that it did', async () => {
    const fx2 = createWorkspaceFixture();
    const logger = createMemoryLogger();
    try {
      const o = { cwd: fx2.ws, timeoutMs: 60_000, logger, hostPath, findBwrap: () => Promise.resolve(null) };
      expect((await runCommand('true', o)).sandbox).toBe('unshare');
      await runCommand('true', o);
      const warns = logger.records.filter((r) => r.level === 'warn');
      expect(warns.map((w) => w.msg)).toEqual([unshareSandboxWarning(unshareReadableHere())]);
      expect(warns[0]!.msg).toMatch(/^sandboxed with unshare \(no bubblewrap\).*; still readable, read-only: /);
      // The exit code comes through the namespaces; an overrunning command is killed with its pid namespace.
      expect((await runCommand('exit 7', o)).exitCode).toBe(7);
      const slow = await runCommand('sleep 120 & sleep 120', { ...o, timeoutMs: 1_000 });
      expect(slow).toMatchObject({ timedOut: true, exitCode: null, sandbox: 'unshare' });
    } finally {
      fx2.cleanup();
    }
  }, 120_000);


  it('sandbox: bwrap (or unshare) refuses to run anything when that tier is missing, saying why and how to opt in; auto runs without it', async () => {
    const fx2 = createWorkspaceFixture();
    const none = () => Promise.resolve(null);
    try {
      const o = { cwd: fx2.ws, timeoutMs: 10_000, logger: createMemoryLogger(), hostPath, findBwrap: none, findUnshare: none };
      const refused = runCommand('touch ran', { ...o, sandbox: 'bwrap', unavailableHint: 'pass --unsandboxed to run it anyway' });
      await expect(refused).rejects.toBeInstanceOf(SandboxUnavailableError);
      await expect(refused).rejects.toThrow(/bubblewrap \(bwrap\) was required .*; pass --unsandboxed to run it anyway$/);
      expect(existsSync(join(fx2.ws, 'ran'))).toBe(false);
      await expect(runCommand('touch ran', { ...o, sandbox: 'unshare' })).rejects.toThrow(/util-linux unshare was required \(sandbox: unshare\)/);
      expect(existsSync(join(fx2.ws, 'ran'))).toBe(false);
      // A root harness never falls back to none: unconfined, its commands could write the host's kernel settings.
      const asRoot = runCommand('touch ran', { ...o, sandbox: 'auto', asRoot: true });
      await expect(asRoot).rejects.toBeInstanceOf(RootUnconfinedError);
      await expect(asRoot).rejects.toThrow(/runs as root .*install bubblewrap/);
      expect(existsSync(join(fx2.ws, 'ran'))).toBe(false);
      expect((await runCommand('touch ran', { ...o, sandbox: 'auto', asRoot: false })).sandbox).toBe('none');
      expect(existsSync(join(fx2.ws, 'ran'))).toBe(true);
    } finally {
      fx2.cleanup();
    }
  });

  it('warns once per logger, naming the missing sandbox', async () => {
    const fx2 = createWorkspaceFixture();
    const logger = createMemoryLogger();
    try {
      const o = { cwd: fx2.ws, timeoutMs: 10_000, logger, sandbox: 'none' as const, hostPath };
      expect((await runCommand('true', o)).sandbox).toBe('none');
      await runCommand('true', o);
      const warns = logger.records.filter((r) => r.level === 'warn');
      expect(warns).toHaveLength(1);
      expect(warns[0]!.msg).toBe(NO_SANDBOX_WARNING);
      expect(warns[0]!.msg).toContain('bwrap');
    } finally {
      fx2.cleanup();
    }
  });
});
