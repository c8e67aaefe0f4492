// Runs the containment probe under each confining tier that works for this process's user and
// prints one JSON line: the test runs it as a normal user (a child spawned with uid/gid) as well.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryLogger } from '../../core/logger.ts';
import { probeBwrap } from '../bwrap.ts';
import { runCommand, type SandboxTier } from '../run-command.ts';
import { probeUnshare } from '../unshare.ts';

/** Sysctls written back with their own current value: harmless if it works, and it must not. */
export const SYSCTL_SAMPLES = ['/proc/sys/kernel/printk_ratelimit', '/proc/sys/kernel/core_pattern', '/proc/sys/vm/swappiness'] as const;

/**
 * The shell probe: every sample sysctl rewritten with its current value (`WROTE <file>` when that
 * worked), the count of /proc knobs the command may write, whether sysrq-trigger is writable, and
 * the effective capability set.
 */
export const CONTAINMENT_PROBE = [
  `for f in ${SYSCTL_SAMPLES.join(' ')}; do v=$(cat "$f" 2>/dev/null) && printf '%s\\n' "$v" 2>/dev/null > "$f" && echo "WROTE $f"; done`,
  'echo "writable knobs: $(find /proc/sys /proc/irq /proc/bus /proc/fs -writable 2>/dev/null | wc -l)"',
  'if [ -e /proc/sysrq-trigger ] && [ -w /proc/sysrq-trigger ]; then echo "WROTE /proc/sysrq-trigger (writable)"; fi',
  'grep "^CapEff:" /proc/self/status',
].join('\n');

/** The tiers that claim to contain and work for this process. */
export async function confiningTiers(hostPath: string): Promise<SandboxTier[]> {
  return [...((await probeBwrap(hostPath)) ? (['bwrap'] as const) : []), ...((await probeUnshare(hostPath)) ? (['unshare'] as const) : [])];
}

/** Runs CONTAINMENT_PROBE under `tier` in a fresh workspace; returns its output. */
export async function probeContainment(tier: SandboxTier, hostPath: string): Promise<string> {
  const ws = mkdtempSync(join(tmpdir(), 'metis-contain-'));
  try {
    const r = await runCommand(CONTAINMENT_PROBE, { cwd: ws, timeoutMs: 60_000, logger: createMemoryLogger(), sandbox: tier, hostPath });
    if (r.sandbox !== tier) throw new Error(`ran under ${r.sandbox}, not ${tier}`);
    return r.output;
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}

// As a script: probe every tier this user has and print {uid, results: {tier: output}}.
if (process.argv[1]?.endsWith('containment-probe.ts')) {
  const hostPath = process.env.PATH ?? '';
  const results: Record<string, string> = {};
  for (const tier of await confiningTiers(hostPath)) results[tier] = await probeContainment(tier, hostPath);
  console.log(JSON.stringify({ uid: process.getuid?.() ?? null, results }));
}
