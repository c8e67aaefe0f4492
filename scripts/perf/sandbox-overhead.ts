// What the resource bounds (issue 22) add to a simulated rep, per tier. Prints JSON.
// Default: a WHOLE sim rep, `bench run --workload fix-a-bug-small --provider sim --seed-passes 1`
// in-process (plan, three turns of run_shell and file tools, the hidden check on a staged copy,
// the trace DB and the report), with the bounds on and off (setResourceBoundsOffForMeasurement:
// no prlimit, disk polls, cgroups, task sampling, sized /tmp or staging-size walk). Median of 10
// each, interleaved so machine load hits both alike. `--commands` adds the narrower figure: only
// the rep's sandboxed work (`python3 run_tests.py` through run_shell, then the check).
//
//   npx tsx scripts/perf/sandbox-overhead.ts [--tier bwrap|unshare|all] [--reps N] [--commands]
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { main } from '../../harness/cli/main.ts';
import { createMemoryLogger } from '../../runtime/core/logger.ts';
import { stageCheck } from '../../runtime/evaluator/check-stage.ts';
import { probeBwrap, probeUnshare, runCommand, setResourceBoundsOffForMeasurement, type SandboxTier } from '../../runtime/sandbox/index.ts';
import { defaultResourceLimits } from '../../runtime/sandbox/resource-limits.ts';

const { values } = parseArgs({ options: { tier: { type: 'string', default: 'bwrap' }, reps: { type: 'string', default: '10' }, commands: { type: 'boolean', default: false } } });
const REPS = Number(values.reps);
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const WORKLOAD = fileURLToPath(new URL('../../workloads/fix-a-bug-small/', import.meta.url));
const CHECK = "python3 -B -m unittest discover -s .bench-check -p 'test_*.py'";
const hostPath = process.env.PATH ?? '';
const limits = defaultResourceLimits().sandbox;

/** One rep's sandboxed work only; its wall time in ms. */
async function sandboxedWork(tier: SandboxTier, unbounded: boolean): Promise<number> {
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

/** One whole sim rep through `bench run` in-process; its wall time in ms. Throws unless it exits 0. */
async function wholeRep(tier: SandboxTier, unbounded: boolean): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'metis-overhead-run-'));
  const err: string[] = [];
  setResourceBoundsOffForMeasurement(unbounded);
  const t0 = performance.now();
  try {
    const io = { out: () => {}, err: (s: string) => err.push(s), isTTY: false, progress: () => {}, env: { METIS_SANDBOX: tier, PATH: hostPath }, cwd: REPO };
    const code = await main(['run', '--workload', 'fix-a-bug-small', '--provider', 'sim', '--seed-passes', '1', '--db-path', join(dir, 'rep.db'), '--quiet'], io);
    if (code !== 0) throw new Error(`bench run exited ${code}: ${err.join('\n')}`);
    return performance.now() - t0;
  } finally {
    setResourceBoundsOffForMeasurement(false);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Median of REPS runs of `one` with the bounds and REPS without, interleaved, after one warm-up. */
async function compare(one: (tier: SandboxTier, unbounded: boolean) => Promise<number>, tier: SandboxTier) {
  await one(tier, false); // warm-up: probes, interpreter caches, module loading
  const withBounds: number[] = [];
  const without: number[] = [];
  for (let i = 0; i < REPS; i++) {
    withBounds.push(await one(tier, false));
    without.push(await one(tier, true));
  }
  const w = median(withBounds);
  const wo = median(without);
  return { tier, reps: REPS, median_ms_with_bounds: Number(w.toFixed(1)), median_ms_without_bounds: Number(wo.toFixed(1)), overhead_ms: Number((w - wo).toFixed(1)), overhead_pct: Number((((w - wo) / wo) * 100).toFixed(1)), iqr_ms_with_bounds: iqr(withBounds), iqr_ms_without_bounds: iqr(without) };
}

const available: SandboxTier[] = [...((await probeBwrap(hostPath)) ? (['bwrap'] as const) : []), ...((await probeUnshare(hostPath)) ? (['unshare'] as const) : [])];
const tiers = values.tier === 'all' ? available : available.filter((t) => t === values.tier);
if (tiers.length === 0) {
  console.error(`sandbox-overhead: tier ${values.tier} does not work here (available: ${available.join(', ') || 'none'})`);
  process.exit(2);
}
const whole = [];
const commands = [];
for (const tier of tiers) {
  whole.push(await compare(wholeRep, tier));
  if (values.commands) commands.push(await compare(sandboxedWork, tier));
}
console.log(
  JSON.stringify(
    { bench: 'sandbox_bounds_overhead_per_sim_rep', root: process.getuid?.() === 0, limits, whole_rep: whole, ...(values.commands ? { sandboxed_work_only: commands } : {}) },
    null,
    1,
  ),
);
