// What the resource bounds (issue 22) add to a simulated rep's sandboxed work, per tier. Prints JSON.
// A sim rep of fix-a-bug-small runs `python3 run_tests.py` through run_shell, then its hidden check on
// a staged copy; both go through runCommand, which is where every bound lives (prlimit, the disk
// polls, the pids cgroup of a root harness, the staging copy's size check). Median of 10 such reps
// with the bounds and 10 without (`unbounded`), interleaved so machine load hits both alike.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMemoryLogger } from '../../runtime/core/logger.ts';
import { stageCheck } from '../../runtime/evaluator/check-stage.ts';
import { probeBwrap, probeUnshare, runCommand, type SandboxTier } from '../../runtime/sandbox/index.ts';
import { defaultResourceLimits } from '../../runtime/sandbox/resource-limits.ts';

const REPS = 10;
const WORKLOAD = fileURLToPath(new URL('../../workloads/fix-a-bug-small/', import.meta.url));
const CHECK = "python3 -B -m unittest discover -s .bench-check -p 'test_*.py'";
const hostPath = process.env.PATH ?? '';
const limits = defaultResourceLimits().sandbox;

/** One rep's sandboxed work; its wall time in ms. */
async function rep(tier: SandboxTier, unbounded: boolean): Promise<number> {
  const ws = mkdtempSync(join(tmpdir(), 'metis-overhead-'));
  cpSync(join(WORKLOAD, 'workspace'), ws, { recursive: true });
  const logger = createMemoryLogger();
  const t0 = performance.now();
  try {
    const shell = await runCommand('python3 run_tests.py', { cwd: ws, timeoutMs: 60_000, logger, sandbox: tier, hostPath, limits, unbounded });
    const stage = stageCheck({ workspaceRoot: ws, checkFilesDir: join(WORKLOAD, 'check'), ...(unbounded ? {} : { maxBytes: limits.workspace_max_bytes }) });
    try {
      const check = await runCommand(CHECK, { cwd: stage.work, timeoutMs: 60_000, logger, sandbox: tier, hostPath, limits, unbounded, writable: [stage.reportDir], readable: [stage.hookDir] });
      if (shell.limit || check.limit) throw new Error(`a bound was hit: ${shell.limit ?? check.limit}`);
    } finally {
      stage.cleanup();
    }
    return performance.now() - t0;
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}

/** The q-quantile (linear between order statistics). */
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  return s[Math.floor(at)]! + (s[Math.ceil(at)]! - s[Math.floor(at)]!) * (at - Math.floor(at));
};
const median = (xs: number[]) => quantile(xs, 0.5);
const iqr = (xs: number[]) => [Number(quantile(xs, 0.25).toFixed(1)), Number(quantile(xs, 0.75).toFixed(1))];

const tiers: SandboxTier[] = [...((await probeBwrap(hostPath)) ? (['bwrap'] as const) : []), ...((await probeUnshare(hostPath)) ? (['unshare'] as const) : [])];
const results = [];
for (const tier of tiers) {
  await rep(tier, false); // warm-up: probes, interpreter caches
  const withBounds: number[] = [];
  const without: number[] = [];
  for (let i = 0; i < REPS; i++) {
    withBounds.push(await rep(tier, false));
    without.push(await rep(tier, true));
  }
  const w = median(withBounds);
  const wo = median(without);
  results.push({ tier, reps: REPS, median_ms_with_bounds: Number(w.toFixed(1)), median_ms_without_bounds: Number(wo.toFixed(1)), overhead_ms: Number((w - wo).toFixed(1)), overhead_pct: Number((((w - wo) / wo) * 100).toFixed(1)), iqr_ms_with_bounds: iqr(withBounds), iqr_ms_without_bounds: iqr(without) });
}
console.log(JSON.stringify({ bench: 'sandbox_bounds_overhead_per_sim_rep', root: process.getuid?.() === 0, limits, results }, null, 1));
