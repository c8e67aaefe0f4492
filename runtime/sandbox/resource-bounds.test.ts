import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../core/logger.ts';
import { copyTreeBounded } from '../evaluator/bounded-copy.ts';
import { stageCheck } from '../evaluator/check-stage.ts';
import { tempDir } from '../../test/support/temp.ts';
import { makeDeepTree } from './test-support/deep-tree.ts';
import { createWorkspaceFixture } from '../tools/test-support/workspace-fixture.ts';
import { probeBwrap } from './bwrap.ts';
import { cgroupParent } from './command-cgroup.ts';
import { ResourceLimitError, type SandboxLimits } from './resource-limits.ts';
import { isRoot, runCommand, type RunCommandResult, type SandboxTier } from './run-command.ts';
import { FORK_PROBE, MEMORY_PROBE, SMALL_LIMITS } from './test-support/bounds-probe.ts';
import { otherUserSkipReason, TSX_CLI, unprivilegedUser } from './test-support/other-user.ts';
import { probeUnshare } from './unshare.ts';

// Issue 22: nothing bounded a command's disk use, process count or memory, and the check's staging
// copy wrote a sparse file out in full. Small bounds here, so each is reached quickly.
const hostPath = process.env.PATH ?? '';
const confined: SandboxTier[] = [...((await probeBwrap(hostPath)) ? (['bwrap'] as const) : []), ...((await probeUnshare(hostPath)) ? (['unshare'] as const) : [])];
const MiB = 1024 ** 2;
const small: SandboxLimits = SMALL_LIMITS;
// Whether a root harness gets a memory cgroup here (else max_memory_bytes is per process).
const memoryAcross = isRoot() && cgroupParent('memory') !== null;
// The none tier bounds disk and memory; it is refused for a root harness unless forced, as here.
const tiers: SandboxTier[] = [...confined, 'none'];

const boundsScript = fileURLToPath(new URL('./test-support/bounds-probe.ts', import.meta.url));



async function run(command: string, sandbox: SandboxTier, limits = small) {
  const fx = createWorkspaceFixture({ 'a.txt': 'a\n' });
  try {
    return await runCommand(command, { cwd: fx.ws, timeoutMs: 60_000, logger: createMemoryLogger(), sandbox, hostPath, limits });
  } finally {
    fx.cleanup();
  }
}

describe.each(tiers)('resource bounds of a command (sandbox=%s)', { timeout: 120_000 }, (tier) => {
  it('sparse files over the workspace cap are a resource limit naming workspace_max_bytes, though they allocate nothing', async () => {
    const r = await run('truncate -s 10M a.bin b.bin; echo made', tier);
    expect(r.output).toContain('made');
    expect(r.limit).toMatch(/^resource limit workspace_max_bytes \(16 MiB\) exceeded: the workspace uses \d+ bytes apparent/);
  });

  it('writing past the cap stops the command (killed while it writes, or refused by the file-size bound)', async () => {
    const r = await run('dd if=/dev/zero of=big.bin bs=1M count=64 2>&1 | tail -1; sleep 5; echo SURVIVED', tier);
    expect(r.limit).toMatch(/workspace_max_bytes/);
    expect(r.output).not.toContain('SURVIVED');
  });

  it('a command that runs into max_memory_bytes ends as a resource limit naming it, and says whether it counts per process or across processes', async () => {
    const r = await run(MEMORY_PROBE, tier);
    expect(r.output).not.toContain('ALLOCATED');
    expect(r.limitKey).toBe('max_memory_bytes');
    // A root harness's confined command gets a memory cgroup where the machine has one; otherwise RLIMIT_AS, per process.
    expect(r.limit).toMatch(memoryAcross && tier !== 'none' ? /^resource limit max_memory_bytes \(256 MiB across the command's processes, a memory cgroup\) reached: the kernel killed 1 process/ : /^resource limit max_memory_bytes \(256 MiB per process: RLIMIT_AS, as no memory cgroup can be made here, so not across processes\) reached: an allocation was refused \("MemoryError"\)/);
  });

  it('a listing that only mentions an allocation failure is no memory hit', async () => {
    const r = await run("printf 'x.py:3: except MemoryError:\\n' ; echo 'grep: Cannot allocate memory is a phrase'", tier);
    expect(r).toMatchObject({ exitCode: 0, limit: null });
  });

  it('within the bounds nothing is reported', async () => {
    const r = await run('head -c 1000000 /dev/zero > ok.bin; echo fine', tier);
    expect(r).toMatchObject({ exitCode: 0, limit: null });
  });
});

describe.each(confined)('process count (sandbox=%s)', { timeout: 120_000 }, (tier) => {
  it(`as ${isRoot() ? 'root' : 'this user'}: no more than max_processes processes at once, and a refused fork ends the command as a resource limit naming it`, async () => {
    const r = await run(FORK_PROBE, tier);
    const forked = Number(/forked (\d+)/.exec(r.output)?.[1] ?? 0);
    expect(forked).toBeLessThan(small.max_processes);
    expect(r.limitKey).toBe('max_processes');
    // As root a pids cgroup counts the refusals; as a normal user the sandbox's tasks are counted when the command reports one.
    expect(r.limit).toMatch(isRoot() ? /^resource limit max_processes \(32\) reached: the pids cgroup refused a fork/ : /^resource limit max_processes \(32\) reached: a fork was refused with \d+ processes running in the sandbox/);
  });

  it('a command that merely prints "Resource temporarily unavailable" is no process-count hit', async () => {
    const r = await run('echo "read: Resource temporarily unavailable"', tier);
    expect(r).toMatchObject({ exitCode: 0, limit: null });
  });
});

describe('process count and memory as a normal user', { timeout: 180_000 }, () => {
  // RLIMIT_NPROC never binds root, so the normal user's path (count refusals, RLIMIT_AS per process) needs another uid.
  const user = unprivilegedUser();
  const reason = otherUserSkipReason([boundsScript]) ?? (confined.length === 0 ? 'no confining tier works here' : null);
  if (reason) console.warn(`[resource-bounds.test] normal-user variant skipped: ${reason}`);
  it.skipIf(reason !== null)('a refused fork ends the command as resource limit max_processes, and memory is bounded per process and says so, in every tier', () => {
    const r = spawnSync(process.execPath, [TSX_CLI, boundsScript], { uid: user!.uid, gid: user!.gid, cwd: '/', env: { PATH: hostPath, HOME: '/' }, encoding: 'utf8', timeout: 150_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const got = JSON.parse(r.stdout) as { uid: number; results: Record<string, { fork: RunCommandResult; memory: RunCommandResult }> };
    expect(got.uid).toBe(user!.uid);
    expect(Object.keys(got.results).length).toBeGreaterThan(0);
    for (const { fork, memory } of Object.values(got.results)) {
      expect(fork.output).toContain('Resource temporarily unavailable');
      expect(fork.limit).toMatch(/^resource limit max_processes \(32\) reached: a fork was refused with \d+ processes running in the sandbox/);
      expect(memory.limit).toMatch(/^resource limit max_memory_bytes \(256 MiB per process: RLIMIT_AS, as no memory cgroup can be made here, so not across processes\) reached/);
    }
  });
});

describe.each(confined)('memory across processes (sandbox=%s)', { timeout: 120_000 }, (tier) => {
  const reason = !isRoot() ? 'only a root harness can make a memory cgroup' : !memoryAcross ? 'no writable memory cgroup here (/sys/fs/cgroup)' : null;
  if (reason) console.warn(`[resource-bounds.test] memory across processes (${tier}) skipped: ${reason}`);
  it.skipIf(reason !== null)('four processes of 100 MiB each pass a 256 MiB bound together though each is under it: a resource limit naming memory', async () => {
    const r = await run(`for i in 1 2 3 4; do python3 -c "import time; b = b'x' * (100 * 1024 * 1024); time.sleep(3); print('HELD')" & done; wait; echo ALL`, tier);
    expect(r.limitKey).toBe('max_memory_bytes');
    expect(r.limit).toMatch(/^resource limit max_memory_bytes \(256 MiB across the command's processes, a memory cgroup\) reached: the kernel killed \d+ process/);
    expect(r.output).not.toContain('ALL');
  });
});

describe.each(confined)('the private /tmp (sandbox=%s)', { timeout: 120_000 }, (tier) => {
  it('is a tmpfs of tmp_max_bytes: writing past it fails (ENOSPC), so the command cannot fill memory through it', async () => {
    // Under the file-size bound (16 MiB), so the tmpfs's size is what stops the write.
    const r = await run('df -k /tmp | tail -1; dd if=/dev/zero of=/tmp/fill bs=1M count=12 2>&1; ls -l /tmp/fill', tier, { ...small, tmp_max_bytes: 8 * MiB });
    expect(r.output).toMatch(/^\S+\s+8192\s/m);
    expect(r.output).toContain('No space left on device');
    expect(r.output).toMatch(/ 8388608 /);
  });
});

describe.each(tiers)('entry and depth bounds of a command (sandbox=%s)', { timeout: 120_000 }, (tier) => {
  it('more entries than workspace_max_files end the command as a resource limit naming it', async () => {
    const r = await run('i=0; while [ $i -lt 2000 ]; do : > f$i; i=$((i+1)); done; echo made', tier, { ...small, workspace_max_files: 500 });
    expect(r.limitKey).toBe('workspace_max_files');
    expect(r.limit).toBe('resource limit workspace_max_files (500) exceeded: the workspace holds more than 500 entries (files, directories and links) (raise it with --limit workspace_max_files=N)');
  });

  it('directories nested deeper than workspace_max_depth end the command as a resource limit naming it', async () => {
    const r = await run('i=0; while [ $i -lt 40 ]; do mkdir d && cd d || break; i=$((i+1)); done; echo made', tier, { ...small, workspace_max_depth: 30 });
    expect(r.limitKey).toBe('workspace_max_depth');
    expect(r.limit).toMatch(/^resource limit workspace_max_depth \(30\) exceeded/);
  });
});

describe("the hidden check's staging copy", () => {
  it('copies hard links as links: 50 links to 1 MiB cost 1 MiB, not 51 (the copy wrote every link out)', () => {
    const fx = createWorkspaceFixture({ 'a.txt': 'a\n' });
    try {
      writeFileSync(join(fx.ws, 'data.bin'), randomBytes(MiB));
      for (let i = 0; i < 50; i++) linkSync(join(fx.ws, 'data.bin'), join(fx.ws, `link${i}.bin`));
      const stage = stageCheck({ workspaceRoot: fx.ws, maxBytes: 4 * MiB, maxFiles: 1000, maxDepth: 16 });
      try {
        const ino = statSync(join(stage.work, 'data.bin')).ino;
        for (let i = 0; i < 50; i++) expect(statSync(join(stage.work, `link${i}.bin`)).ino).toBe(ino);
        expect(statSync(join(stage.work, 'data.bin')).nlink).toBe(51);
        expect(readFileSync(join(stage.work, 'link7.bin')).equals(readFileSync(join(fx.ws, 'data.bin')))).toBe(true);
      } finally {
        stage.cleanup();
      }
    } finally {
      fx.cleanup();
    }
  });

  it('refuses a workspace past workspace_max_files or workspace_max_depth before copying, leaving no temp dir', () => {
    const fx = createWorkspaceFixture({ 'a.txt': 'a\n' });
    // A TMPDIR of its own: other test files and processes make metis-check- dirs in the shared one meanwhile.
    const ownTmp = tempDir();
    const savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = ownTmp;
    const before = new Set(readdirSync(tmpdir()).filter((n) => n.startsWith('metis-check-')));
    try {
      for (let i = 0; i < 150; i++) writeFileSync(join(fx.ws, `f${i}`), '');
      expect(() => stageCheck({ workspaceRoot: fx.ws, maxBytes: 16 * MiB, maxFiles: 100, maxDepth: 16 })).toThrow(/staging copy refused the workspace: resource limit workspace_max_files \(100\) exceeded/);
      makeDeepTree(fx.ws, 20, 8);
      expect(() => stageCheck({ workspaceRoot: fx.ws, maxBytes: 16 * MiB, maxFiles: 1000, maxDepth: 16 })).toThrow(/resource limit workspace_max_depth \(16\) exceeded/);
      const after = readdirSync(tmpdir()).filter((n) => n.startsWith('metis-check-') && !before.has(n));
      expect(tmpdir()).toBe(ownTmp);
      expect(after.filter((n) => existsSync(join(tmpdir(), n)))).toEqual([]);
    } finally {
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
      fx.cleanup();
    }
  });

  it('the copy counts what it writes against its bound before writing: it stops at the bound, never past it', () => {
    const src = tempDir();
    for (let i = 0; i < 3; i++) writeFileSync(join(src, `f${i}.bin`), randomBytes(2 * MiB));
    const out = tempDir();
    let thrown: unknown = null;
    try {
      copyTreeBounded(src, join(out, 'work'), { bounds: { maxBytes: 5 * MiB, maxEntries: 100, maxDepth: 16 }, linkPool: join(out, 'links'), leaveOut: null });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ResourceLimitError);
    expect((thrown as ResourceLimitError).limit).toBe('workspace_max_bytes');
    // Two files went in; the third, which would pass 5 MiB, was never written.
    expect(readdirSync(join(out, 'work')).length).toBe(2);
    expect(existsSync(join(out, 'links'))).toBe(false);
  });

  it('refuses a workspace whose sparse file passes the cap, before copying anything (no temp dir grows)', () => {
    const fx = createWorkspaceFixture({ 'a.txt': 'a\n' });
    // A TMPDIR of its own: other test files and processes make metis-check- dirs in the shared one meanwhile.
    const ownTmp = tempDir();
    const savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = ownTmp;
    const before = new Set(readdirSync(tmpdir()).filter((n) => n.startsWith('metis-check-')));
    try {
      writeFileSync(join(fx.ws, 'sparse.bin'), '');
      truncateSync(join(fx.ws, 'sparse.bin'), 64 * MiB);
      let thrown: unknown = null;
      try {
        stageCheck({ workspaceRoot: fx.ws, maxBytes: 16 * MiB }).cleanup();
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(ResourceLimitError);
      expect(String(thrown)).toMatch(/staging copy refused the workspace: resource limit workspace_max_bytes \(16 MiB\) exceeded/);
      const after = readdirSync(tmpdir()).filter((n) => n.startsWith('metis-check-') && !before.has(n));
      expect(tmpdir()).toBe(ownTmp);
      expect(after.filter((n) => existsSync(join(tmpdir(), n)))).toEqual([]);
    } finally {
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
      fx.cleanup();
    }
  });
});
