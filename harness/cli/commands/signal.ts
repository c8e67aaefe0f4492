import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { SIM_BANNER } from '../../report/build-report.ts';
import { terminalWidth } from '../../report/fit-table.ts';
import { runSuite } from '../../suite/run-suite.ts';
import type { RequestedProvider } from '../../jobs/resolve-provider.ts';
import { signedPts } from '../../report/verdict-grammar.ts';
import { HIGH_SIGNAL_GAP, signalVerdict, type SignalResult } from '../../signal/signal-verdict.ts';
import { writeSignal } from '../../signal/write-signal.ts';
import { SetupError } from '../../errors.ts';
import { discoverWorkloads } from '../../workloads/load-workload.ts';
import type { CommandSpec } from '../command.ts';
import { addForceOption, addRequestOptions, collect, freshOutputPath, intArg, requestOptions } from '../parse-args.ts';
import { fold } from './list.ts';
import { defaultResourceLimits } from '../../../runtime/sandbox/resource-limits.ts';
import { writeJsonFile } from '../../io/write-json-file.ts';

const f3 = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));
/** A difference of two solved rates, in points (issue 23: never a bare fraction or a percent). */
const gapPts = (x: number | null) => (x === null ? 'n/a' : `${signedPts(100 * x)} pts`);
const rate = (arm: SignalResult['cheap']) => (arm.solved_rate === null ? 'no check' : `${arm.solved}/${arm.scores.length}`);

/** The per-workload lines of a signal run. */
export function renderSignal(results: readonly SignalResult[], width: number | null): string[] {
  const lines: string[] = [];
  for (const r of results) {
    lines.push(`signal: ${r.workload}`);
    for (const [label, arm] of [
      ['cheap ', r.cheap],
      ['strong', r.strong],
    ] as const) {
      lines.push(`  ${label} ${arm.model}: mean ${f3(arm.mean)}, solved ${rate(arm)}`);
      lines.push(fold(`    scores ${arm.scores.map((s) => s.toFixed(3)).join(' ')}`, width, '    '));
    }
    lines.push(`  score gap ${f3(r.score_gap)}, solved gap ${gapPts(r.solved_gap)} -> ${r.verdict} (high needs a score gap >= ${HIGH_SIGNAL_GAP})`);
  }
  if (results.length > 1) {
    const nameWidth = Math.max(8, ...results.map((r) => r.workload.length));
    lines.push('', `${'workload'.padEnd(nameWidth)}  score gap  solved gap  verdict`);
    for (const r of results) lines.push(`${r.workload.padEnd(nameWidth)}  ${f3(r.score_gap).padStart(9)}  ${gapPts(r.solved_gap).padStart(10)}  ${r.verdict}`);
  }
  return lines;
}

/** `bench signal`: the benchmark.md §4.2 smoke — N reps per arm at temperature 0, the gaps, the verdict; `--write` records it. */
export const signalCommandSpec: CommandSpec = {
  configure(cmd: Command) {
    cmd
      .option('--workload <name>', 'a workload to measure (repeatable)', collect, [])
      .option('--all', 'measure every workload in --workloads-dir', false)
      .option(
        '--write',
        'record each verdict in its workload.yaml: signal_strength and a signal block (gaps, reps, provider, models, date); comments and layout are kept',
        false,
      )
      .option('--workloads-dir <dir>', 'where workloads live', './workloads')
      .option('--model <id>', 'the cheap arm', 'anthropic:claude-haiku-4-5')
      .option('--baseline <id>', 'the strong arm', 'anthropic:claude-sonnet-4-6')
      .option('--reps <n>', 'reps per arm', intArg('--reps', 1, defaultResourceLimits().run.seed_passes_max), 4)
      .option('--provider <name>', 'auto | sim | anthropic | openai | openai-compatible', 'auto')
      .option('--base-url <url>', 'API base URL (openai-compatible, proxies)')
      .option('--seed <n>', "the simulated provider's randomness", intArg('--seed', 0), 0)
      .option('--db-path <path>', 'trace DB to create; default reports/.runs/bench-<UTC-ts>.db')
      .option('--json <path>', 'where to write the signal JSON; default beside the DB')
      .option('--quiet', 'no progress output', false)
      .option('--width <n>', 'fold output to this many columns (default: the terminal, else $COLUMNS, else 100)', intArg('--width', 40));
    addRequestOptions(cmd);
    addForceOption(cmd);
  },
  async run(cmd, _args, io) {
    const o = cmd.opts<{
      workload: string[];
      all: boolean;
      write: boolean;
      workloadsDir: string;
      model: string;
      baseline: string;
      reps: number;
      provider: RequestedProvider;
      baseUrl?: string;
      seed: number;
      dbPath?: string;
      json?: string;
      width?: number;
      force: boolean;
      quiet: boolean;
      requestTimeout?: number;
      maxRetries?: number;
    }>();
    if (o.json) freshOutputPath(io.cwd, o.json, { flag: '--json', force: o.force });
    const dir = resolve(io.cwd, o.workloadsDir);
    if (o.all === o.workload.length > 0)
      throw new SetupError('bench signal: name the workloads with --workload NAME (repeatable), or pass --all for every one (not both)');
    const all = discoverWorkloads(dir);
    const names = o.all ? all.map((w) => w.spec.name) : o.workload;
    const result = await runSuite(
      {
        workloadsDir: o.workloadsDir,
        workloadNames: names,
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
        ...requestOptions(o),
        showProgress: io.isTTY && !o.quiet,
        // As bench run: without a TTY (a CI log) a line per finished workload and arm, waits and retries included.
        progressMode: o.quiet ? 'off' : io.isTTY ? 'tty' : 'lines',
      },
      io,
    );
    const results = names.map((n) => signalVerdict(result.report, n, Boolean(all.find((w) => w.spec.name === n)?.spec.evaluate?.check)));
    const jsonPath = o.json ? resolve(io.cwd, o.json) : result.dbPath.replace(/\.db$/, '') + '.signal.json';
    const body = results.length === 1 ? results[0] : { results };
    writeJsonFile(jsonPath, { ...body, report_path: result.jsonPath, db_path: result.dbPath });

    const width = terminalWidth({
      width: o.width ?? null,
      columns: io.isTTY ? process.stdout.columns : undefined,
      env: io.env,
    });
    if (results.some((r) => r.simulated)) io.out(fold(`*** ${SIM_BANNER} ***`, width));
    for (const line of renderSignal(results, width)) io.out(line);
    io.out(`  json: ${jsonPath}`);
    if (o.write) {
      for (const r of results) {
        const file = join(dir, r.workload, 'workload.yaml');
        writeSignal(file, r);
        io.out(`  wrote ${r.verdict} (${r.provider}) to ${file}`);
      }
      if (results.some((r) => r.simulated))
        io.out(fold('  note: a verdict measured on the simulated provider must be re-measured with a key before it counts for a real model.', width));
    }
    return 0;
  },
};
