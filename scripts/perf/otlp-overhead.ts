// What `bench run --otlp-endpoint` costs a simulated run (issue 21 target: <= 5% slower). Prints JSON.
// Runs the same sim run (one delegating workload, 3 reps) in this process, alternately without and with
// --otlp-endpoint pointed at a loopback OTLP/HTTP receiver in a child process (so receiving costs this
// process nothing), and compares the median wall times, flush of the last batch included.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../harness/cli/main.ts';

const PAIRS = Number(process.env.OTLP_OVERHEAD_PAIRS ?? 7);
const PORT = 43_000 + (process.pid % 1000);
const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');

const receiver = spawn(process.execPath, ['--import', 'tsx', join(repo, 'scripts', 'export', 'otlp-collector.ts'), String(PORT)], { cwd: repo, stdio: ['ignore', 'pipe', 'inherit'] });
let received = '';
await new Promise<void>((ready) => receiver.stdout!.on('data', (c: Buffer) => {
  received += c.toString();
  if (received.includes('OTLP/HTTP receiver on')) ready();
}));

const root = mkdtempSync(join(tmpdir(), 'metis-perf-otlp-'));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
async function once(i: number, otlp: boolean): Promise<number> {
  const args = ['run', '--workload', 'multi-step-with-delegation', '--seed-passes', '3', '--quiet', '--db-path', join(root, `r${i}-${otlp ? 'on' : 'off'}.db`)];
  if (otlp) args.push('--otlp-endpoint', `http://127.0.0.1:${PORT}/v1/traces`);
  const warnings: string[] = [];
  const t0 = performance.now();
  const code = await main(args, { out: (s) => warnings.push(...s.split('\n').filter((l) => l.includes('--otlp-endpoint'))), err: () => {}, isTTY: false, progress: () => {}, env: { PATH: process.env.PATH }, cwd: repo });
  const ms = performance.now() - t0;
  if (code > 1 || warnings.length > 0) throw new Error(`run ${i} (otlp ${otlp}) exit ${code}: ${warnings.join('; ')}`);
  return ms;
}

const off: number[] = [];
const on: number[] = [];
try {
  await once(-1, false); // warm-up: module loading and the tokenizer
  for (let i = 0; i < PAIRS; i++) {
    // Alternate the order so drift in machine load hits both arms alike.
    if (i % 2 === 0) {
      off.push(await once(i, false));
      on.push(await once(i, true));
    } else {
      on.push(await once(i, true));
      off.push(await once(i, false));
    }
  }
} finally {
  receiver.kill('SIGINT');
  rmSync(root, { recursive: true, force: true });
}
const summary = await new Promise<string>((done) => receiver.on('exit', () => done(received.trim().split('\n').at(-1) ?? '{}')));
const mOff = median(off);
const mOn = median(on);
process.stdout.write(
  `${JSON.stringify({
    workload: 'multi-step-with-delegation',
    reps_per_run: 3,
    pairs: PAIRS,
    median_ms_without: Math.round(mOff),
    median_ms_with_otlp: Math.round(mOn),
    overhead_pct: Math.round(((mOn - mOff) / mOff) * 1000) / 10,
    target_pct: 5,
    runs_ms_without: off.map(Math.round),
    runs_ms_with_otlp: on.map(Math.round),
    receiver: JSON.parse(summary) as unknown,
  })}\n`,
);
