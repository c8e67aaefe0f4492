import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../core/logger.ts';
import { createWorkspaceFixture } from '../tools/test-support/workspace-fixture.ts';
import { DEV_NODES } from './dev-nodes.ts';
import { probeBwrap, probeUnshare, runCommand, type RunCommandOptions, type SandboxTier } from './index.ts';

const hostPath = process.env.PATH ?? '';
const hasBwrap = (await probeBwrap(hostPath)) !== null;
const hasUnshare = (await probeUnshare(hostPath)) !== null;
if (!hasBwrap) console.warn('[isolation.test] bubblewrap is not installed or cannot create namespaces here: the bwrap cases are skipped');
if (!hasUnshare) console.warn('[isolation.test] util-linux unshare cannot create namespaces here: the unshare cases are skipped');
const modes: SandboxTier[] = [...(hasBwrap ? (['bwrap'] as const) : []), ...(hasUnshare ? (['unshare'] as const) : []), 'none'];
const confined = modes.filter((m) => m !== 'none');

// Outside /tmp and /var/tmp on purpose (in the repo's ignored test-output/): both are covered by
// the sandboxes whatever the binds, and the hidden paths must be hidden for their own sake.
let outside: string;
let home: string;
let checkFile: string;
const saved: Record<string, string | undefined> = {};
const SECRET = 'sk-secret-xyz';

beforeAll(() => {
  mkdirSync(join(process.cwd(), 'test-output'), { recursive: true });
  outside = mkdtempSync(join(process.cwd(), 'test-output', 'metis-isolation-'));
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

async function run(command: string, sandbox: SandboxTier, extra: Partial<RunCommandOptions> = {}): Promise<string> {
  const fx = createWorkspaceFixture({ 'a.txt': 'a\n' });
  writeFileSync(join(fx.outside, 'sibling.txt'), 'SIBLING_MARKER\n');
  try {
    const r = await runCommand(command, { cwd: fx.ws, timeoutMs: 60_000, logger: createMemoryLogger(), sandbox, hostPath, hide: [join(outside, 'workloads')], ...extra });
    expect(r.sandbox).toBe(sandbox);
    return r.output;
  } finally {
    fx.cleanup();
  }
}

describe.each(modes)('what a command sees of the harness (sandbox=%s)', { timeout: 120_000 }, (mode) => {
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

  it.skipIf(mode === 'none')(`under ${mode}: the user's home, the hidden check and the harness's processes are not there at all`, async () => {
    const out = await run(`cat ${join(home, 'secret.txt')} 2>&1; cat ${checkFile} 2>&1; ls /root /home ${outside} 2>&1; cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n" | grep -c ANTHROPIC; ls /proc | grep -c '^[0-9]'`, mode);
    expect(out).not.toContain('HOME_SECRET_MARKER');
    expect(out).not.toContain('CHECK_SECRET_MARKER');
    expect(out).toMatch(/No such file or directory/);
    const lines = out.trim().split('\n');
    expect(lines.at(-2)).toBe('0'); // no process in the sandbox's /proc carries the key
    expect(Number(lines.at(-1))).toBeLessThan(10); // only the sandbox's own few processes
  });
});

describe.each(confined)('escapes that must fail (sandbox=%s)', { timeout: 120_000 }, (mode) => {
  it('walking up the PPid chain reaches no process holding the harness\'s secret', async () => {
    const walk = 'p=$$; while [ -n "$p" ] && [ "$p" != 0 ]; do tr "\\0" "\\n" < /proc/$p/environ 2>/dev/null; p=$(sed -n "s/^PPid:[[:space:]]*//p" /proc/$p/status 2>/dev/null); done';
    const out = await run(walk, mode);
    expect(out).not.toContain(SECRET);
  });

  it('unmounting the cover, or climbing out of the workspace by `..`, reveals nothing', async () => {
    const out = await run(`umount ${home} 2>&1; umount -l ${home} 2>&1; umount -l /tmp 2>&1; cat ${join(home, 'secret.txt')} 2>&1; cat ../outside/sibling.txt 2>&1; ls -a .. 2>&1; cat ${checkFile} 2>&1`, mode);
    expect(out).not.toContain('HOME_SECRET_MARKER');
    expect(out).not.toContain('SIBLING_MARKER');
    expect(out).not.toContain('CHECK_SECRET_MARKER');
  });

  it('a process that left the session with setsid does not outlive the call (the pid namespace dies with it)', async () => {
    const seconds = 300 + Math.floor(Math.random() * 600);
    const out = await run(`setsid sleep ${seconds} </dev/null >/dev/null 2>&1 & sleep 0.2; echo started`, mode);
    expect(out).toContain('started');
    const alive = () => readdirSync('/proc').filter((p) => /^\d+$/.test(p)).some((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8') === `sleep\0${seconds}\0`;
      } catch {
        return false; // exited meanwhile
      }
    });
    // Killing is asynchronous: poll briefly rather than expect it at once.
    for (let i = 0; i < 50 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive()).toBe(false);
  });

  it('the system directories and the rest of the root are read-only; a workspace outside every covered dir stays writable', async () => {
    const probes = ['/usr/local', '/usr/lib', '/opt', '/var'].map((d) => join(d, `metis-sandbox-probe-${process.pid}-${mode}`)).filter((p) => existsSync(dirname(p)));
    // A workspace in the repo's ignored test-output/: on the root mount, not under a cover.
    const ws = mkdtempSync(join(outside, 'ws-'));
    try {
      const r = await runCommand(`for p in ${probes.join(' ')}; do touch "$p" 2>/dev/null && echo "WROTE $p"; done; echo ok > made.txt && cat made.txt`, { cwd: ws, timeoutMs: 60_000, logger: createMemoryLogger(), sandbox: mode, hostPath });
      expect(r.output).not.toContain('WROTE');
      expect(r.output.trim()).toBe('ok');
      expect(readFileSync(join(ws, 'made.txt'), 'utf8')).toBe('ok\n');
    } finally {
      for (const p of probes) rmSync(p, { force: true });
      rmSync(ws, { recursive: true, force: true });
    }
    for (const p of probes) expect(existsSync(p)).toBe(false);
  });

  it('/dev holds only the harmless devices (no disk to read raw); they and a private /dev/shm work', async () => {
    const out = await run('ls -A /dev | tr "\\n" " "; echo; echo gone > /dev/null && head -c 8 /dev/urandom | wc -c && echo shm > /dev/shm/x && cat /dev/shm/x && readlink /dev/stdout', mode);
    const [listing, ...rest] = out.split('\n');
    const allowed = new Set(['null', 'zero', 'full', 'random', 'urandom', 'tty', 'shm', 'fd', 'stdin', 'stdout', 'stderr', 'pts', 'ptmx', 'console', 'mqueue', 'core']);
    expect(listing!.trim().split(' ').filter((d) => !allowed.has(d))).toEqual([]);
    expect(rest.join('\n').trim()).toBe('8\nshm\n/proc/self/fd/1');
  });

  it.skipIf(process.getuid?.() !== 0)('a root command cannot chmod or chown the host\'s device nodes, which still work', async () => {
    const nodes = DEV_NODES.map((n) => `/dev/${n}`).filter((p) => existsSync(p));
    const before = new Map(nodes.map((p) => [p, statSync(p)]));
    try {
      const out = await run(`for p in ${nodes.join(' ')}; do chmod 600 "$p" 2>/dev/null && echo "CHMOD $p"; chown 65534 "$p" 2>/dev/null && echo "CHOWN $p"; done; echo gone > /dev/null && head -c 4 /dev/zero | wc -c && head -c 4 /dev/urandom | wc -c`, mode);
      expect(out.trim().split('\n')).toEqual(['4', '4']);
      for (const p of nodes) {
        const now = statSync(p);
        expect([p, now.mode, now.uid]).toEqual([p, before.get(p)!.mode, before.get(p)!.uid]);
      }
    } finally {
      // Never leave the host broken for the rest of the suite, whatever the outcome.
      for (const [p, st] of before) {
        chmodSync(p, st.mode & 0o7777);
        chownSync(p, st.uid, st.gid);
      }
    }
  });

  it('a loopback listener of the host cannot be reached', async () => {
    const server: Server = createServer((sock) => sock.end('HELLO_FROM_HOST\n'));
    await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
    const port = (server.address() as { port: number }).port;
    try {
      const connect = `python3 -c "import socket; s=socket.create_connection(('127.0.0.1', ${port}), timeout=10); print(s.recv(100).decode().strip())" 2>&1 | tail -1`;
      expect(await run(connect, 'none')).toContain('HELLO_FROM_HOST'); // the probe itself works
      const out = await run(connect, mode);
      expect(out).not.toContain('HELLO_FROM_HOST');
      expect(out).toMatch(/Error/);
    } finally {
      server.close();
    }
  });

  it('a normal build still works: python3 -m unittest in the workspace, writes to the workspace and $TMPDIR', async () => {
    const fx = createWorkspaceFixture({
      'calc.py': 'def add(a, b):\n    return a + b\n',
      'test_calc.py': 'import unittest\nfrom calc import add\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n',
    });
    try {
      const r = await runCommand('python3 -m unittest 2>&1 | tail -1; echo x > out.txt && echo y > "$TMPDIR/t" && cat "$TMPDIR/t"; date +%Z', { cwd: fx.ws, timeoutMs: 60_000, logger: createMemoryLogger(), sandbox: mode, hostPath, hide: [join(outside, 'workloads')] });
      expect(r.sandbox).toBe(mode);
      expect(r.exitCode).toBe(0);
      expect(r.output).toMatch(/^OK\ny\nUTC\n$/);
      expect(readFileSync(join(fx.ws, 'out.txt'), 'utf8')).toBe('x\n');
    } finally {
      fx.cleanup();
    }
  });
});
