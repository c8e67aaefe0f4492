// The resource probes of issue 22, run through a whole `bench run --provider sim` of a checkout
// (default this one; `--checkout DIR` another, e.g. a worktree of an older commit), printing one
// JSON object: per probe the command, the exit code, the rep's error or the run's last words, and
// the peak of the bytes allocated in the run's temp dir (TMPDIR, where bench puts the rep's
// workspace and the check's staging copy; sampled every 100 ms). A guard stops a probe whose
// /tmp growth passes `--guard-gib` (default 12): before the bounds, `truncate -s 70G` would fill the disk.
//
//   [METIS_SANDBOX=bwrap|unshare] npx tsx scripts/perf/resource-probes.ts [--checkout DIR] [--only NAME,...] [--guard-gib N]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { createMemoryLogger as CreateMemoryLogger } from '../../runtime/core/logger.ts';
import type { runCommand as RunCommand } from '../../runtime/sandbox/run-command.ts';
import { diskUsage } from '../../runtime/sandbox/resource-limits.ts';
import { removeTree } from '../../runtime/sandbox/remove-tree.ts';

const { values } = parseArgs({ options: { checkout: { type: 'string' }, only: { type: 'string' }, 'guard-gib': { type: 'string' } } });
const checkout = resolve(values.checkout ?? fileURLToPath(new URL('../..', import.meta.url)));
const guardBytes = Number(values['guard-gib'] ?? 12) * 1024 ** 3;
const only = values.only?.split(',');

/** Probes that run one shell command in a rep, then its hidden check (whose staging copy is what grew /tmp). */
const SHELL_PROBES: Record<string, string> = {
  'truncate-4g': 'truncate -s 4G sparse.bin; ls -ls sparse.bin',
  'truncate-70g': 'truncate -s 70G sparse.bin; ls -ls sparse.bin',
  'dd-2g': 'dd if=/dev/zero of=big.bin bs=1M count=2048 2>&1 | tail -1',
  'forks-200': 'n=0; for i in $(seq 200); do sleep 4 & n=$((n+1)); done; echo "started $n"; wait',
  'forks-400': 'n=0; for i in $(seq 400); do sleep 4 & n=$((n+1)); done; echo "started $n"; wait',
  // Three processes of 1.6 GB each: under the 4 GiB bound one by one, over it together.
  'memory-3x1600m': `for i in 1 2 3; do python3 -c "import time; b = b'x' * (1600 * 1024 * 1024); time.sleep(3); print('held 1.6 GB')" & done; wait`,
  // Issue 29. Python, not sh: dash's cd gives up once $PWD passes PATH_MAX.
  'deep-3000': `python3 -c "import os; n='d'*200; [(os.mkdir(n), os.chdir(n)) for _ in range(3000)]; print('made 3000 levels')"`,
  'hardlinks-200x32m': 'head -c 33554432 /dev/urandom > data.bin; i=0; while [ $i -lt 200 ]; do ln data.bin l$i.bin; i=$((i+1)); done; ls | wc -l',
  'empty-files-1m': `python3 -c "import os; os.mkdir('f'); [open(os.path.join('f', str(i)), 'w').close() for i in range(1000000)]; print('made 1000000 files')"`,
};

/** Probes whose command is not run a second time alone (it takes minutes, or leaves a tree the old checkout's cleanup cannot remove). */
const NOT_ALONE = new Set(['deep-3000', 'hardlinks-200x32m', 'empty-files-1m']);

/** A one-turn workload whose sim plan runs `command` and whose check passes, in `dir`. */
function workload(dir: string, name: string, command: string): void {
  const w = join(dir, name);
  mkdirSync(join(w, 'workspace'), { recursive: true });
  writeFileSync(join(w, 'workspace', 'app.txt'), 'hello\n');
  mkdirSync(join(w, 'check'));
  writeFileSync(join(w, 'check', 'README'), 'the check only needs its staging copy\n');
  const call = `              - tool: run_shell\n                input: { command: ${JSON.stringify(command)}, timeout_seconds: 600 }\n`;
  const plan = (id: string, competent: boolean) => `      - id: ${id}\n        competent: ${competent}\n        steps:\n          - tool_calls:\n${call}        final: "Done."\n`;
  writeFileSync(join(w, 'sim.yaml'), `version: 1\nturns:\n  - difficulty: 0.1\n    plans:\n${plan('go', true)}${plan('go-again', false)}`);
  writeFileSync(join(w, 'workload.yaml'), `name: ${name}\ndescription: a resource probe\nsuite_version: 1\nsignal_strength: marginal\nturns:\n  - prompt: "go"\nevaluate:\n  check:\n    command: "true"\n    timeout_seconds: 600\n`);
}

const scratch = mkdtempSync('/var/tmp/metis-probes-');
// The runs' temp dir (workspaces, staging copies) inside the scratch dir: a probe the guard stops
// leaves its partial copy there, removed with it.
const runTmp = join(scratch, 'tmp');
mkdirSync(runTmp);

/** Bytes allocated under the runs' temp dir: what a run wrote there, whatever other processes do to the disk meanwhile. */
const tmpUsed = () => diskUsage([runTmp]).allocated;

interface ProbeResult {
  probe: string;
  command: string;
  /** What the command printed when run alone through the checkout's runCommand (the rep's transcript keeps only its size). */
  command_output?: string;
  command_limit?: string | null;
  exit_code: number | null;
  signal: string | null;
  printed: string;
  tmp_growth_peak_bytes: number;
  stopped_by_guard: boolean;
  wall_s: number;
  peak_rss_kib: number | null;
}

/** Runs `bench ARGS` of the checkout under /usr/bin/time, sampling /tmp; the guard kills its group. */
async function runBench(args: string[]): Promise<Omit<ProbeResult, 'probe' | 'command' | 'printed'> & { stdout: string; stderr: string }> {
  const base = tmpUsed();
  let peak = 0;
  let guarded = false;
  const t0 = performance.now();
  const child = spawn('/usr/bin/time', ['-f', 'METIS_PEAK_RSS_KIB=%M', process.execPath, join(checkout, 'bin/bench.mjs'), ...args], { cwd: checkout, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TMPDIR: runTmp } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const sampler = setInterval(() => {
    peak = Math.max(peak, tmpUsed() - base);
    if (peak > guardBytes && !guarded) {
      guarded = true;
      process.kill(-child.pid!, 'SIGKILL');
    }
  }, 100);
  const [code, signal] = await new Promise<[number | null, string | null]>((r) => child.on('close', (c, s) => r([c, s])));
  clearInterval(sampler);
  const rss = /METIS_PEAK_RSS_KIB=(\d+)/.exec(stderr);
  const exit = /Command exited with non-zero status (\d+)/.exec(stderr);
  const killed = /Command terminated by signal (\d+)/.exec(stderr);
  return {
    exit_code: killed ? 128 + Number(killed[1]) : exit ? Number(exit[1]) : code,
    signal,
    tmp_growth_peak_bytes: peak,
    stopped_by_guard: guarded,
    wall_s: Number(((performance.now() - t0) / 1000).toFixed(1)),
    peak_rss_kib: rss ? Number(rss[1]) : null,
    stdout,
    stderr: stderr.replace(/Command (exited|terminated).*\n/g, '').replace(/METIS_PEAK_RSS_KIB=\d+\n?/, ''),
  };
}

/** The command run once through the checkout's own runCommand (default tier), in a fresh workspace. */
async function commandAlone(command: string): Promise<{ command_output: string; command_limit: string | null }> {
  const { runCommand } = (await import(join(checkout, 'runtime/sandbox/run-command.ts'))) as { runCommand: typeof RunCommand };
  const { createMemoryLogger } = (await import(join(checkout, 'runtime/core/logger.ts'))) as { createMemoryLogger: typeof CreateMemoryLogger };
  const ws = mkdtempSync('/var/tmp/metis-probe-ws-');
  try {
    const r = await runCommand(command, { cwd: ws, timeoutMs: 120_000, logger: createMemoryLogger(), hostPath: process.env.PATH ?? '' });
    return { command_output: r.output.trim().slice(-300), command_limit: (r as { limit?: string | null }).limit ?? null };
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}

const results: ProbeResult[] = [];
try {
  for (const [probe, command] of Object.entries(SHELL_PROBES)) {
    if (only && !only.includes(probe)) continue;
    const dir = join(scratch, probe);
    workload(dir, probe, command);
    const db = join(scratch, `${probe}.db`);
    const r = await runBench(['run', '--workloads-dir', dir, '--workload', probe, '--provider', 'sim', '--db-path', db, '--quiet']);
    const reportPath = db.replace(/\.db$/, '.json');
    let printed = r.stderr.trim().split('\n').slice(-2).join(' / ');
    if (existsSync(reportPath)) {
      const report = JSON.parse(readFileSync(reportPath, 'utf8')) as { workloads: { reps: { error: string | null; error_class: string | null; solved?: boolean; check?: { passed: boolean } | null }[] }[] };
      const rep = report.workloads[0]?.reps[0];
      printed = rep?.error ? `${rep.error_class}: ${rep.error}` : `no error (solved: ${String(rep?.solved)}); ${printed}`;
    }
    const alone = NOT_ALONE.has(probe) ? {} : await commandAlone(command);
    results.push({ probe, command, ...alone, printed, ...r, stdout: undefined, stderr: undefined } as ProbeResult);
    // The run's own leftovers (a 70G sparse file) must not count toward the next probe.
    spawnSync('sync');
  }
  if (!only || only.includes('seed-passes-1e9')) {
    const r = await runBench(['run', '--provider', 'sim', '--seed-passes', '1e9', '--db-path', join(scratch, 'seed.db'), '--quiet']);
    results.push({ probe: 'seed-passes-1e9', command: 'bench run --provider sim --seed-passes 1e9', printed: (r.stderr.split('\n').find((l) => /seed-passes|abort|heap|memory/i.test(l)) ?? r.stderr.trim().split('\n').slice(-1)[0]!).slice(0, 300), ...r, stdout: undefined, stderr: undefined } as ProbeResult);
  }
} finally {
  // A deep tree an old checkout left behind is more than rmSync can remove.
  removeTree(scratch);
}
console.log(JSON.stringify({ bench: 'resource_probes', checkout, root: process.getuid?.() === 0, sandbox: process.env.METIS_SANDBOX ?? 'auto', guard_bytes: guardBytes, results }, null, 1));
