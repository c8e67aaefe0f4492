import { Option, type Command } from 'commander';
import { runSuite } from '../../suite/run-suite.ts';
import type { RunSuiteOptions } from '../../suite/run-suite-options.ts';
import { renderReportTable } from '../../report/render-table.ts';
import { join } from 'node:path';
import type { CommandSpec } from '../command.ts';
import { SetupError } from '../../errors.ts';
import { addForceOption, addRequestOptions, addWidthOptions, collect, decimalArg, freshOutputPath, intArg, numberArg, requestOptions, tableWidth } from '../parse-args.ts';
import { costModes } from '../../runner/cost-budget.ts';
import type { Decimal } from 'decimal.js';
import { parseShard, type ShardSpec } from '../../jobs/shard.ts';
import { runStreamCommand } from './run/run-stream-command.ts';
import { selectProtocol } from '../../protocols/select-protocol.ts';
import { checkEndpoint, parseHeaders } from '../../export/otlp/otlp-send.ts';
import { runSeeds, seedsFor } from '../../suite/multi-run.ts';
import { renderMultiRunBlock } from '../../report/multi-run-headline.ts';
import { createSystemClock } from '../../../runtime/core/clock.ts';
import { parseSettings } from '../../matrix/matrix-selection.ts';
import { runMatrixCommand } from './run/run-matrix-command.ts';
import { parseTarget } from '../../matrix/routing-target.ts';
import { DEFAULT_COST_WEIGHTS } from '../../matrix/run-matrix.ts';
import { defaultResourceLimits, withOverrides } from '../../../runtime/sandbox/resource-limits.ts';

/** The CLI's largest numbers (runtime/data/resource-limits.json `run`). */
const RUN_BOUNDS = defaultResourceLimits().run;

/** The shipped sandbox bounds with `--limit` overrides; a bad pair is a setup error (exit 2) naming it. */
function sandboxLimits(pairs: readonly string[]) {
  try {
    return withOverrides(defaultResourceLimits().sandbox, pairs);
  } catch (e) {
    throw new SetupError((e as Error).message);
  }
}

/** benchmark.md §5, shown in `bench run --help`; the figures live in harness/data/cost-budget.json. */
const COST_HELP = `
Cost budget with real providers (USD, default actual=haiku, baseline=sonnet).
The baseline is re-priced from recorded tokens, never called.
  run mode                               actual cost     baseline cost
${costModes().map((m) => `  ${m.label.padEnd(38)} ~$${m.low}-${m.high}`.padEnd(56) + (m.id === 'smoke' ? 'n/a (no API call)' : 'n/a')).join('\n')}
A run that passes 2x the upper bound of its mode is flagged in the report's warnings.
With --seed-passes N the seed passes cost N times as much. The simulated provider (sim) costs nothing:
its dollar figures are what the emulated calls would have cost.

Exit codes: 0 clean; 1 an assertion failed (report still written); 2 setup error.
Examples:
  npx bench run --include-marginal
  npx bench run --workload fix-a-bug-small --seed-passes 3 --json out.json`;

/** `bench run`: the suite, N reps per workload, a report (harness-and-runtime.md §2). */
export const runCommandSpec: CommandSpec = {
  configure(cmd: Command) {
    cmd
      .option('--workload <name>', 'run this workload by name (repeatable); bypasses the signal-strength filter', collect, [])
      .option('--workloads-dir <dir>', 'where workloads live', './workloads')
      .option('--include-marginal', 'include signal_strength: marginal workloads', false)
      .addOption(new Option('--provider <name>', 'model backend: auto uses a real provider when its key is set, else sim').choices(['auto', 'sim', 'anthropic', 'openai', 'openai-compatible', 'replay']).default('auto'))
      .option('--base-url <url>', 'API base URL: required for openai-compatible (Ollama, vLLM, LM Studio, OpenRouter), optional for anthropic/openai proxies')
      .option('--model <id>', 'actual model (id or alias: haiku, sonnet, opus, gpt-5-mini, gpt-5); pinned for every turn', 'anthropic:claude-haiku-4-5')
      .option('--baseline <id>', 'counterfactual model, re-priced from the recorded tokens, never called', 'anthropic:claude-sonnet-4-6')
      .option('--seed-passes <n>', 'reps per workload against one shared patterns DB', intArg('--seed-passes', 1, RUN_BOUNDS.seed_passes_max), 1)
      .addOption(new Option('--protocol <name>', 'single: every turn on --model; a3: Pass A forced to --model, Pass B forced to --baseline, Pass C routed with slot 4 live over the store A and B seeded, then Pass R at random at C\'s strong-call share').choices(['single', 'a3']).default('single'))
      .option('--seed <n>', "the simulated provider's randomness and nothing else", intArg('--seed', 0), 0)
      .option('--runs <n>', 'independent runs (learning trajectories), each with its own trace DB, pattern store and seed (--seed, --seed+1, ...); the headline interval then adds the between-run variance (docs/results.md)', intArg('--runs', 1, RUN_BOUNDS.runs_max))
      .option('--seeds <list>', 'the runs\' seeds, comma-separated (instead of --runs N)')
      .option('--temperature <t>', 'temperature threaded to every request', numberArg('--temperature', 0, 2), 0)
      .option('--db-path <path>', 'trace DB to create (refuses an existing file); default reports/.runs/bench-<UTC-ts>.db')
      .option('--patterns-db-path <path>', 'shared pattern store of the run (an existing one is reused: a seeded store); default beside the DB')
      .option('--json <path>', 'where to write the JSON report; default beside the DB')
      .option('--otlp-endpoint <url>', 'stream each rep\'s OpenTelemetry GenAI spans to this OTLP/HTTP traces URL while the run goes (no content; failures are a warning)')
      .option('--otlp-header <name=value>', 'an HTTP header for --otlp-endpoint (repeatable)', collect, [])
      .option('--record <file>', 'append every provider exchange to this JSONL cassette (keyed by the SHA-256 of the request)')
      .option('--replay <file>', 'serve every exchange from a cassette; a request it lacks is exit 2')
      .option('--concurrency <n>', 'workload reps in flight at once (real providers are I/O-bound)', intArg('--concurrency', 1, RUN_BOUNDS.concurrency_max), 1)
      .option('--max-cost <usd>', 'stop cleanly before spend passes this many USD (report incomplete, exit 1)', decimalArg('--max-cost'))
      .addOption(new Option('--fingerprint-version <v>', 'pattern store fingerprints: v1 structural, v2 hybrid with embeddings (default: the routing config, else v1)').choices(['v1', 'v2']))
      .option('--embedding-provider <id>', 'v2 embedder: local:hashing-384 (offline default), openai:text-embedding-3-small, cohere:embed-multilingual-v3.0, local:transformers:<model>; implies v2')
      .option('--routing-config <file>', 'a global routing.yaml (rules, tiers, pattern knobs incl. fingerprint_version); each workspace\'s .metis/routing.yaml still applies over it')
      .option('--shard <I/N>', 'run slice I of N of the run\'s (workload, pass, rep) jobs, chosen by a stable hash (docs/cli.md); shards share the run id', parseShard)
      .option('--passes <list>', 'run only these passes of the protocol, comma-separated (a3: A,B on shards, then C,D on the merged store)')
      .option('--run-id <id>', 'the run id (shards of one run must share it); default derived from seed, suite, models, commit and prices when sharded or --passes')
      .option('--resume <db>', 'continue the interrupted run in this trace DB: keep its finished reps, roll back a half-written one, run the rest (identity flags come from the DB)')
      .option('--retry-errors', 'with --resume: also run again the reps that ended in a provider error', false)
      .option('--limit <key=value>', 'a sandbox bound (repeatable): workspace_max_bytes, max_processes, max_memory_bytes, rep_max_seconds, tmp_max_bytes, workspace_max_files, workspace_max_depth; defaults in runtime/data/resource-limits.json (docs/cli.md)', collect, [])
      .option('--accept-changed', "with --resume: resume although a selected workload's files or the commit changed since the run started (the report's warnings and provenance.accepted_changes say what)", false)
      .option('--unsandboxed', "with no sandbox (neither bubblewrap nor unshare works), let a real provider's run_shell and hidden checks run anyway, confined by cwd and a scrubbed environment only (default: refused)", false)
      .addOption(new Option('--holdout <kind>', 'a3: also run Pass C leave-one-workload-out (pass C-oos): each workload routed by a store seeded only from the other workloads, workload_id null').choices(['workload']))
      .option('--no-random-arm', "a3: skip Pass R, the random router run as an arm at Pass C's strong-call share (it adds about one Pass C of time and spend); the headline then compares with the A/B interpolation only")
      .option('--oracle-epsilon <e>', 'a3 oracles: a model within e of the best mean gated score counts as as good (default 0.02)', numberArg('--oracle-epsilon', 0, 1))
      .option('--margin <pts>', 'the headline\'s non-inferiority margin on solved rate, in points: routed within this many points of the strong arm reads non-inferior (default 5)', numberArg('--margin', 0, 100))
      .option('--quiet', 'no progress output', false)
      .addOption(new Option('--cache <mode>', 'the semantic cache (runtime/cache): query streams (workloads/cache-*) default to on, off gives the cache-off arm; agent workloads run without it unless --cache on is given').choices(['on', 'off']).default('on'))
      .option('--cache-delta <d>', 'query streams: largest tolerated wrong-hit rate of Tier 2 (the learned bound); 1 = fixed prior threshold, no bound (default 0.01)', numberArg('--cache-delta', 0, 1))
      .addOption(new Option('--cache-gate <mode>', 'query streams: the exact-token gate (numbers, identifiers, quotes, entities, negation, direction)').choices(['on', 'off']).default('on'))
      .option('--cache-prior-offset <x>', 'query streams: added to every prior threshold (docs/semantic-cache.md) (a weaker embedder sits lower on the cosine scale)', numberArg('--cache-prior-offset', -1, 1))
      .addOption(new Option('--cache-labels <labels>', "query streams from GPTCache's pairs: score under GPTCache's own labels (default) or the audited ones that merge pairs stating the same facts (workloads/cache-gptcache/equivalent-pairs.yaml)").choices(['gptcache', 'audited']).default('gptcache'))
      .addOption(new Option('--cache-calibration <mode>', 'query streams with warm cache content (cache-gptcache): cross-fit = split the asked queries in 2 folds by a hash of their id and serve each fold with a tuner warmed only by a calibration replay of the other (docs/semantic-cache.md); none = start from an empty ledger').choices(['none', 'cross-fit']).default('none'))
      .addOption(new Option('--cache-contextual <mode>', 'query streams: embed each query behind a context summary (docs/semantic-cache.md); streams run on the simulated provider, so the summary is its labelled [emulated] stand-in, not a model\'s').choices(['on', 'off']).default('off'))
      .option('--models <list>', 'matrix workloads: the candidate pool, comma-separated model ids (default every model of the matrix)')
      .option('--cost-weights <list>', `matrix workloads: slot 4 cost_weight values swept for the router's curve (default ${DEFAULT_COST_WEIGHTS.join(',')})`)
      .option('--folds <n>', 'matrix workloads: cross-fit folds (default 5)', intArg('--folds', 2), 5)
      .option('--matrix-settings <list>', 'matrix workloads: settings to play, comma-separated: in_sample, unseen_tasks, new_workspace, online (default all)')
      .option('--target <target>', "matrix workloads: what the router's chosen operating point meets: cost_weight=X (declared knob), budget=USD (per task) or quality=PTS (within PTS points of the best single model); budget and quality are chosen inside each training fold (default quality=2)")
      .addOption(new Option('--split <half>', "matrix workloads: the matrix's dev clusters (about 70%, by a hash of the cluster id), its confirm clusters, or all").choices(['dev', 'confirm', 'all']).default('all'))
      .option('--wrong-hit-penalty <k>', 'query streams: net savings charge each wrong hit k times its query cost', numberArg('--wrong-hit-penalty', 0, 1000), 10)
      .addHelpText('after', COST_HELP);
    addRequestOptions(cmd);
    addWidthOptions(cmd);
    addForceOption(cmd);
  },
  async run(cmd, _args, io) {
    const o = cmd.opts<{
      width?: number;
      wide?: boolean;
      workload: string[];
      workloadsDir: string;
      includeMarginal: boolean;
      provider: RunSuiteOptions['provider'];
      model: string;
      baseline: string;
      seedPasses: number;
      protocol: 'single' | 'a3';
      patternsDbPath?: string;
      record?: string;
      baseUrl?: string;
      replay?: string;
      seed: number;
      runs?: number;
      seeds?: string;
      temperature: number;
      dbPath?: string;
      json?: string;
      quiet: boolean;
      unsandboxed: boolean;
      concurrency: number;
      requestTimeout?: number;
      maxRetries?: number;
      limit: string[];
      maxCost?: Decimal;
      fingerprintVersion?: 'v1' | 'v2';
      embeddingProvider?: string;
      routingConfig?: string;
      shard?: ShardSpec;
      passes?: string;
      runId?: string;
      resume?: string;
      retryErrors: boolean;
      acceptChanged: boolean;
      holdout?: 'workload';
      randomArm: boolean;
      oracleEpsilon?: number;
      margin?: number;
      cache: 'on' | 'off';
      cacheDelta?: number;
      cacheGate: 'on' | 'off';
      cachePriorOffset?: number;
      cacheLabels: 'gptcache' | 'audited';
      cacheCalibration: 'none' | 'cross-fit';
      cacheContextual: 'on' | 'off';
      wrongHitPenalty: number;
      force: boolean;
      otlpEndpoint?: string;
      otlpHeader: string[];
      models?: string;
      costWeights?: string;
      folds: number;
      matrixSettings?: string;
      target?: string;
      split: 'dev' | 'confirm' | 'all';
    }>();
    if (o.otlpHeader.length > 0 && !o.otlpEndpoint) throw new SetupError('--otlp-header applies to --otlp-endpoint; give --otlp-endpoint URL too');
    // A resumed run rewrites its own report; a fresh one must not overwrite a file it did not write.
    if (o.json && !o.resume) freshOutputPath(io.cwd, o.json, { flag: '--json', force: o.force });
    // The protocol is chosen once, from the workloads' kind and --protocol (harness/protocols/select-protocol.ts).
    const protocol = selectProtocol(o.workloadsDir, o.workload, o.protocol);
    if (protocol === 'matrix')
      return runMatrixCommand(
        {
          workloadDir: join(o.workloadsDir, o.workload[0]!),
          models: o.models ? o.models.split(',').map((m) => m.trim()) : null,
          costWeights: o.costWeights ? o.costWeights.split(',').map(Number) : DEFAULT_COST_WEIGHTS,
          folds: o.folds,
          seed: o.seed,
          settings: parseSettings(o.matrixSettings),
          target: parseTarget(o.target),
          split: o.split,
          fingerprintVersion: o.fingerprintVersion ?? null,
          embeddingProvider: o.embeddingProvider ?? null,
          routingConfigPath: o.routingConfig ?? null,
          dbPath: o.dbPath ?? null,
          jsonPath: o.json ?? null,
        },
        io,
        tableWidth(o, io),
        o.quiet,
      );
    if (protocol === 'query-streams') {
      // A stream run writes no trace DB: say where its records go rather than ignore the flag.
      if (o.dbPath)
        throw new SetupError(
          `--db-path ${o.dbPath}: query streams (${o.workload.join(', ')}) write no trace DB; their per-query records go to the JSON report (--json <path>), and \`bench analyze --stream-report <path>\` recomputes every figure from them. Drop --db-path.`,
        );
      return runStreamCommand(
        {
          workloadsDir: o.workloadsDir,
          names: o.workload,
          cache: o.cache === 'on',
          embedder: o.embeddingProvider ?? null,
          delta: o.cacheDelta ?? null,
          gate: o.cacheGate === 'on',
          priorOffset: o.cachePriorOffset ?? null,
          penalty: o.wrongHitPenalty,
          seed: o.seed,
          json: o.json ?? null,
          labels: o.cacheLabels,
          calibration: o.cacheCalibration,
          contextual: o.cacheContextual === 'on',
          width: tableWidth(o, io),
          quiet: o.quiet,
        },
        io,
      );
    }
    if (o.holdout && o.protocol !== 'a3') throw new SetupError('--holdout needs --protocol a3 (it re-runs Pass C out of sample)');
    if (o.holdout && (o.shard || o.passes || o.resume)) throw new SetupError('--holdout runs in one invocation: drop --shard, --passes and --resume');
    const seeds = seedsFor({ seed: o.seed, runs: o.runs ?? null, seeds: o.seeds ?? null });
    const options: RunSuiteOptions = {
      workloadsDir: o.workloadsDir,
      workloadNames: o.workload,
      includeMarginal: o.includeMarginal,
      provider: o.provider,
      model: o.model,
      baseline: o.baseline,
      seedPasses: o.seedPasses,
      seed: o.seed,
      temperature: o.temperature,
      dbPath: o.dbPath ?? null,
      jsonPath: o.json ?? null,
      patternsDbPath: o.patternsDbPath ?? null,
      recordPath: o.record ?? null,
      baseURL: o.baseUrl ?? null,
      ...requestOptions(o),
      concurrency: o.concurrency,
      limits: sandboxLimits(o.limit),
      unsandboxed: o.unsandboxed,
      maxCostUsd: o.maxCost ?? null,
      replayPath: o.replay ?? null,
      protocol: o.protocol,
      showProgress: io.isTTY && !o.quiet,
      // Without a TTY (a CI log) a line per finished workload and pass, so the log shows the run advancing.
      progressMode: o.quiet ? 'off' : io.isTTY ? 'tty' : 'lines',
      shard: o.shard ?? null,
      passes: o.passes ?? null,
      runId: o.runId ?? null,
      resumePath: o.resume ?? null,
      retryErrors: o.retryErrors,
      acceptChanged: o.acceptChanged,
      ...(o.fingerprintVersion ? { fingerprintVersion: o.fingerprintVersion } : {}),
      embeddingProvider: o.embeddingProvider ?? null,
      routingConfigPath: o.routingConfig ?? null,
      holdout: o.holdout ?? null,
      randomArm: o.randomArm,
      oracleEpsilon: o.oracleEpsilon ?? null,
      marginPts: o.margin ?? null,
      // Agent workloads run without the cache unless --cache on is given explicitly.
      cache: o.cache === 'on' && cmd.getOptionValueSource('cache') === 'cli',
      otlp: o.otlpEndpoint ? { url: checkEndpoint(o.otlpEndpoint, '--otlp-endpoint'), headers: parseHeaders(o.otlpHeader, '--otlp-header') } : null,
    };
    if (seeds) {
      const multi = await runSeeds(options, seeds, io, runSuite, createSystemClock().nowUs());
      // The first run's full report (its intervals conditional on its learned state), then the runs combined.
      const first = multi.results[0]!;
      io.out(renderReportTable(first.report, { json: first.jsonPath, width: tableWidth(o, io) }));
      io.out('');
      io.out(renderMultiRunBlock(multi.summary, multi.summaryPath, tableWidth(o, io)));
      return Math.max(...multi.results.map((r) => r.report.exit_code));
    }
    const result = await runSuite(options, io);
    io.out(renderReportTable(result.report, { json: result.jsonPath, width: tableWidth(o, io) }));
    return result.report.exit_code;
  },
};
