// Runs the process and memory probes under each tier that works for this process's user and
// prints one JSON line: resource-bounds.test.ts runs it as a normal user (a child spawned with
// uid/gid) when the tests run as root, since RLIMIT_NPROC never binds root.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryLogger } from '../../core/logger.ts';
import { defaultResourceLimits, type SandboxLimits } from '../resource-limits.ts';
import { runCommand, type RunCommandResult, type SandboxTier } from '../run-command.ts';
import { confiningTiers } from './containment-probe.ts';

const MiB = 1024 ** 2;

/** Small bounds, so each is reached in a second or two. */
export const SMALL_LIMITS: SandboxLimits = { ...defaultResourceLimits().sandbox, workspace_max_bytes: 16 * MiB, max_processes: 32, max_memory_bytes: 256 * MiB, tmp_max_bytes: 16 * MiB };

/** Forks up to 200 children that sleep 3 s, counting those it got, prints `forked N` and waits for them (as `make -j` or a shell's `wait` would). */
export const FORK_PROBE = `python3 -c '${[
  'import os, time',
  'n = 0',
  'for i in range(200):',
  '    try:',
  '        pid = os.fork()',
  '    except OSError as e:',
  '        print(e, flush=True)',
  '        break',
  '    if pid == 0:',
  '        time.sleep(3)',
  '        os._exit(0)',
  '    n += 1',
  'print("forked", n, flush=True)',
  'for _ in range(n):',
  '    os.wait()',
].join('\n')}'`;

/** One process that fills 512 MiB (each page written): past a 256 MiB bound whichever way it counts. */
export const MEMORY_PROBE = `python3 -c "b = b'x' * (512 * 1024 * 1024); print('ALLOCATED')"`;

/** Runs `command` under `tier` with `limits` in a fresh workspace. */
export async function runProbe(command: string, tier: SandboxTier, hostPath: string, limits: SandboxLimits = SMALL_LIMITS): Promise<RunCommandResult> {
  const ws = mkdtempSync(join(tmpdir(), 'metis-bounds-'));
  try {
    return await runCommand(command, { cwd: ws, timeoutMs: 60_000, logger: createMemoryLogger(), sandbox: tier, hostPath, limits });
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}

// As a script: both probes under every tier this user has; prints {uid, results: {tier: {fork, memory}}}.
if (process.argv[1]?.endsWith('bounds-probe.ts')) {
  const hostPath = process.env.PATH ?? '';
  const results: Record<string, { fork: RunCommandResult; memory: RunCommandResult }> = {};
  for (const tier of await confiningTiers(hostPath)) results[tier] = { fork: await runProbe(FORK_PROBE, tier, hostPath), memory: await runProbe(MEMORY_PROBE, tier, hostPath) };
  console.log(JSON.stringify({ uid: process.getuid?.() ?? null, results }));
}
