import { existsSync, readdirSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../core/logger.ts';
import { stageCheck } from '../evaluator/check-stage.ts';
import { createWorkspaceFixture } from '../tools/test-support/workspace-fixture.ts';
import { probeBwrap } from './bwrap.ts';
import { defaultResourceLimits, ResourceLimitError, type SandboxLimits } from './resource-limits.ts';
import { isRoot, runCommand, type SandboxTier } from './run-command.ts';
import { probeUnshare } from './unshare.ts';

// Issue 22: nothing bounded a command's disk use, process count or memory, and the check's staging
// copy wrote a sparse file out in full. Small bounds here, so each is reached quickly.
const hostPath = process.env.PATH ?? '';
const confined: SandboxTier[] = [...((await probeBwrap(hostPath)) ? (['bwrap'] as const) : []), ...((await probeUnshare(hostPath)) ? (['unshare'] as const) : [])];
const MiB = 1024 ** 2;
const small: SandboxLimits = { ...defaultResourceLimits().sandbox, workspace_max_bytes: 16 * MiB, max_processes: 32, max_memory_bytes: 256 * MiB };
// The none tier bounds disk and memory; it is refused for a root harness unless forced, as here.
const tiers: SandboxTier[] = [...confined, 'none'];

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

  it('a process may not map more memory than max_memory_bytes', async () => {
    const r = await run('python3 -c "b = bytearray(512 * 1024 * 1024); print(\'ALLOCATED\')" 2>&1 | tail -1', tier);
    expect(r.output).toContain('MemoryError');
    expect(r.output).not.toContain('ALLOCATED');
  });

  it('within the bounds nothing is reported', async () => {
    const r = await run('head -c 1000000 /dev/zero > ok.bin; echo fine', tier);
    expect(r).toMatchObject({ exitCode: 0, limit: null });
  });
});

describe.each(confined)('process count (sandbox=%s)', { timeout: 120_000 }, (tier) => {
  it('no more than max_processes processes at once: further forks are refused', async () => {
    const fork = [
      'import os, time',
      'n = 0',
      'for i in range(200):',
      '    try:',
      '        pid = os.fork()',
      '    except OSError:',
      '        break',
      '    if pid == 0:',
      '        time.sleep(3)',
      '        os._exit(0)',
      '    n += 1',
      'print("forked", n)',
    ].join('\n');
    const r = await run(`python3 -c '${fork}'`, tier);
    const forked = Number(/forked (\d+)/.exec(r.output)?.[1]);
    expect(forked).toBeLessThan(small.max_processes);
    // As root the bound is a pids cgroup, whose refusals are counted: the command's result names it.
    if (isRoot()) expect(r.limit).toMatch(/^resource limit max_processes \(32\) reached/);
  });
});

describe("the hidden check's staging copy", () => {
  it('refuses a workspace whose sparse file passes the cap, before copying anything (no temp dir grows)', () => {
    const fx = createWorkspaceFixture({ 'a.txt': 'a\n' });
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
      expect(after.filter((n) => existsSync(join(tmpdir(), n)))).toEqual([]);
    } finally {
      fx.cleanup();
    }
  });
});
