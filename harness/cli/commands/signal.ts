import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { SIM_BANNER } from '../../report/build-report.ts';
import { runSuite } from '../../runner/run-suite.ts';
import type { RequestedProvider } from '../../runner/resolve-provider.ts';
import { HIGH_SIGNAL_GAP, signalVerdict } from '../../signal/signal-verdict.ts';
import type { CommandSpec } from '../command.ts';
import { intArg } from '../parse-args.ts';

/** `bench signal --workload NAME`: the benchmark.md §4.2 smoke — N reps per arm at temperature 0, the gap, the verdict. */
export const signalCommandSpec: CommandSpec = {
  name: 'signal',
  description: `Measure a workload's cheap-vs-strong quality gap (4 reps each at temperature 0); high when the gap is >= ${HIGH_SIGNAL_GAP}.`,
  configure(cmd: Command) {
    cmd
      .requiredOption('--workload <name>', 'the workload to measure')
      .option('--workloads-dir <dir>', 'where workloads live', './workloads')
      .option('--model <id>', 'the cheap arm', 'anthropic:claude-haiku-4-5')
      .option('--baseline <id>', 'the strong arm', 'anthropic:claude-sonnet-4-6')
      .option('--reps <n>', 'reps per arm', intArg('--reps', 1), 4)
      .option('--provider <name>', 'auto | sim | anthropic | openai | openai-compatible', 'auto')
      .option('--base-url <url>', 'API base URL (openai-compatible, proxies)')
      .option('--seed <n>', "the simulated provider's randomness", intArg('--seed', 0), 0)
      .option('--db-path <path>', 'trace DB to create; default reports/.runs/bench-<UTC-ts>.db')
      .option('--json <path>', 'where to write the signal JSON; default beside the DB');
  },
  async run(cmd, _args, io) {
    const o = cmd.opts<{ workload: string; workloadsDir: string; model: string; baseline: string; reps: number; provider: RequestedProvider; baseUrl?: string; seed: number; dbPath?: string; json?: string }>();
    const result = await runSuite(
      {
        workloadsDir: o.workloadsDir,
        workloadNames: [o.workload],
        includeMarginal: true,
        provider: o.provider,
        model: o.model,
        baseline: o.baseline,
        seedPasses: o.reps,
        seed: o.seed,
        temperature: 0,
        dbPath: o.dbPath ?? null,
        jsonPath: null,
        patternsDbPath: null,
        protocol: 'signal',
        baseURL: o.baseUrl ?? null,
        showProgress: io.isTTY,
      },
      io,
    );
    const verdict = signalVerdict(result.report, o.workload);
    const jsonPath = o.json ? resolve(io.cwd, o.json) : result.dbPath.replace(/\.db$/, '') + '.signal.json';
    writeFileSync(jsonPath, `${JSON.stringify({ ...verdict, report_path: result.jsonPath, db_path: result.dbPath }, null, 2)}\n`);
    const f = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));
    if (verdict.simulated) io.out(`*** ${SIM_BANNER} ***`);
    io.out(`signal: ${verdict.workload}`);
    io.out(`  cheap  ${verdict.cheap_model.padEnd(30)} mean ${f(verdict.cheap_mean)}  scores ${verdict.cheap_scores.map((s) => s.toFixed(3)).join(' ')}`);
    io.out(`  strong ${verdict.strong_model.padEnd(30)} mean ${f(verdict.strong_mean)}  scores ${verdict.strong_scores.map((s) => s.toFixed(3)).join(' ')}`);
    io.out(`  gap ${f(verdict.gap)} -> ${verdict.verdict} (high needs >= ${HIGH_SIGNAL_GAP})`);
    io.out(`  json: ${jsonPath}`);
    return 0;
  },
};
