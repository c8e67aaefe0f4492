// What one workspace can do to the host, probed through `bench run` as its own process (sim provider, its own
// TMPDIR under /var/tmp) on one sandbox tier. Prints one JSON object per probe:
// - deep-tree: a run_shell step nests 3,000 directories of 200-character names; a second run on the same TMPDIR
//   must start and complete.
// - hard-links: 32 MiB of random data and 200 hard links to it, then a hidden check (which stages a copy);
//   peak TMPDIR growth in allocated bytes of distinct inodes.
// - many-files: one million empty files; the harness's peak RSS and the host's peak inode use.
// Usage (as root for the figures): nice npx tsx scripts/probes/workspace-probes.ts PROBE [--tier bwrap|unshare]
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { removeTree } from '../../runtime/sandbox/index.ts';
import { diskUsage } from '../../runtime/sandbox/resource-limits.ts';
import { workRoot } from '../../harness/runs/run-workdir.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** A one-turn workload whose sim plan runs `command`; with `check`, a hidden check runs after. */
function workload(dir: string, name: string, command: string, check?: string): void {
  const w = join(dir, name);
  mkdirSync(join(w, 'workspace'), { recursive: true });
  writeFileSync(join(w, 'workspace', 'app.txt'), 'hello\n');
  const call = `              - tool: run_shell\n                input: { command: ${JSON.stringify(command)}, timeout_seconds: 600 }\n`;
  const plan = (id: string, competent: boolean) => `      - id: ${id}\n        competent: ${competent}\n        steps:\n          - tool_calls:\n${call}        final: "Done."\n`;
  writeFileSync(join(w, 'sim.yaml'), `version: 1\nturns:\n  - difficulty: 0.1\n    plans:\n${plan('go', true)}${plan('go-again', false)}`);
  const evaluate = check ? `evaluate:\n  check:\n    command: ${JSON.stringify(check)}\n    timeout_seconds: 600\n` : '';
  if (check) {
    mkdirSync(join(w, 'check'));
    writeFileSync(join(w, 'check', 'ok.txt'), 'ok\n');
  }
  writeFileSync(join(w, 'workload.yaml'), `name: ${name}\ndescription: a probe\nsuite_version: 1\nsignal_strength: marginal\nturns:\n  - prompt: "go"\n${evaluate}`);
}

/** Peak resident memory (VmHWM) of `pid` and its node descendants seen so far, in MB: the harness, not the sandboxed commands. */
function harnessPeakMb(pid: number, peak: Map<number, number>): void {
  const visit = (p: number) => {
    try {
      const status = readFileSync(`/proc/${p}/status`, 'utf8');
      const name = /^Name:\s+(\S+)/m.exec(status)?.[1];
      const hwm = Number(/^VmHWM:\s+(\d+)/m.exec(status)?.[1] ?? 0) / 1024;
      if (name === 'node' || name === 'MainThread') peak.set(p, Math.max(peak.get(p) ?? 0, hwm));
      for (const t of readdirSync(`/proc/${p}/task`))
        for (const c of readFileSync(`/proc/${p}/task/${t}/children`, 'utf8').split(' ').filter(Boolean)) visit(Number(c));
    } catch {
      // gone between two reads
    }
  };
  visit(pid);
}

interface RunOutcome {
  exit: number | null;
  wall_s: number;
  harness_peak_rss_mb: number;
  stderr_tail: string;
}

async function benchRun(args: string[], tmp: string, tier: string, sample?: () => void): Promise<RunOutcome> {
  const started = Date.now();
  const env = { PATH: process.env.PATH, TMPDIR: tmp, ...(tier === 'unshare' ? { METIS_SANDBOX: 'unshare' } : {}) };
  const child = spawn(process.execPath, [join(REPO, 'bin/bench.mjs'), 'run', '--provider', 'sim', '--quiet', ...args], { cwd: REPO, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const peak = new Map<number, number>();
  const timer = setInterval(() => {
    harnessPeakMb(child.pid!, peak);
    sample?.();
  }, 250);
  const exit = await new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
  clearInterval(timer);
  return { exit, wall_s: (Date.now() - started) / 1000, harness_peak_rss_mb: Math.round(Math.max(0, ...peak.values())), stderr_tail: stderr.trim().split('\n').slice(-3).join(' | ') };
}

const repOf = (db: string, name: string) => {
  const r = JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as { status: string; workloads: { workload: string; reps: { error_class: string | null; error: string | null; check?: { passed: boolean } | null }[] }[] };
  const rep = r.workloads.find((w) => w.workload === name)?.reps[0];
  return { run_status: r.status, error_class: rep?.error_class ?? null, error: rep?.error?.slice(0, 160) ?? null, check_passed: rep?.check?.passed ?? null };
};

async function main(): Promise<void> {
  const probe = process.argv[2];
  const tierAt = process.argv.indexOf('--tier');
  const tier = tierAt > 0 ? process.argv[tierAt + 1]! : 'bwrap';
  const base = mkdtempSync('/var/tmp/metis-probe-');
  const dir = join(base, 'workloads');
  const tmp = join(base, 'tmp');
  mkdirSync(tmp);
  const db = join(base, 'probe.db');
  try {
    if (probe === 'deep-tree') {
      workload(dir, 'deep', `python3 -c "import os; n='d'*200; [(os.mkdir(n), os.chdir(n)) for _ in range(3000)]; print('made')"`);
      workload(dir, 'calm', 'echo ok > ok.txt');
      const first = await benchRun(['--workloads-dir', dir, '--workload', 'deep', '--workload', 'calm', '--db-path', db], tmp, tier);
      const db2 = join(base, 'later.db');
      const later = await benchRun(['--workloads-dir', dir, '--workload', 'calm', '--db-path', db2], tmp, tier);
      const left = existsSync(workRoot(tmp)) ? readdirSync(workRoot(tmp)).length : 0;
      console.log(JSON.stringify({ probe, tier, first, deep: repOf(db, 'deep'), calm: repOf(db, 'calm'), later, later_calm: repOf(db2, 'calm'), work_dirs_left: left }));
    } else if (probe === 'hard-links') {
      workload(dir, 'links', 'head -c 33554432 /dev/urandom > data.bin; i=0; while [ $i -lt 200 ]; do ln data.bin l$i.bin; i=$((i+1)); done; echo linked', 'test -f .bench-check/ok.txt');
      let peak = 0;
      const run = await benchRun(['--workloads-dir', dir, '--workload', 'links', '--db-path', db], tmp, tier, () => {
        peak = Math.max(peak, diskUsage([tmp]).allocated);
      });
      console.log(JSON.stringify({ probe, tier, run, rep: repOf(db, 'links'), peak_tmpdir_growth_mb: Math.round(peak / 1e6) }));
    } else if (probe === 'many-files') {
      workload(dir, 'many', 'mkdir f && cd f && python3 -c "import os; [open(str(i), \'w\').close() for i in range(1000000)]; print(\'made\')"');
      const free0 = statfsSync(tmp).ffree;
      let minFree = free0;
      const run = await benchRun(['--workloads-dir', dir, '--workload', 'many', '--db-path', db], tmp, tier, () => {
        minFree = Math.min(minFree, statfsSync(tmp).ffree);
      });
      // Inodes of the whole file system: other processes' use is in it too.
      console.log(JSON.stringify({ probe, tier, run, rep: repOf(db, 'many'), peak_inodes_used: free0 - minFree }));
    } else throw new Error(`unknown probe '${probe}' (deep-tree, hard-links or many-files)`);
  } finally {
    if (process.env.KEEP) console.error(`kept ${base}`);
    else removeTree(base);
  }
}

await main();
