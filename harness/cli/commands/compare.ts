import { compareCacheArms } from '../../cache-bench/compare-cache.ts';
import { basename, dirname, join, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { createSystemClock } from '../../../runtime/core/clock.ts';
import {
  artifactPathFor,
  compareReports,
  DEFAULT_EMBEDDING_PROVIDER,
  renderCompareTable,
  runFingerprintAb,
  writeCompareArtifact,
  type CompareInput,
  type RunSuiteFn,
  type SharedRunOptions,
} from '../../compare/index.ts';
import { abRunDir, withFingerprint } from '../../compare/fingerprint-ab.ts';
import { loadConfigArms, runConfigAb } from '../../compare/config-arms.ts';
import { compareRuns, isRunsSummaryFile, loadRunsSummary, type RunsInput } from '../../compare/compare-runs.ts';
import { runArmsOverSeeds } from '../../compare/runs-ab.ts';
import { seedsFor } from '../../suite/multi-run.ts';
import { DEFAULT_MARGIN_PTS } from '../../report/verdict-grammar.ts';
import { DEFAULT_REGRESSION_METRICS, DEFAULT_REGRESSION_SCOPES, findRegressions, renderRegressionLines, unknownMetrics } from '../../compare/regression.ts';
import { loadReport } from '../../report/find-report.ts';
import { runSuite } from '../../suite/run-suite.ts';
import type { RunSuiteOptions } from '../../suite/run-suite-options.ts';
import { SetupError } from '../../errors.ts';
import type { CommandSpec } from '../command.ts';
import type { CliIO } from '../../io/cli-io.ts';
import { addForceOption, addWidthOptions, collect, freshOutputPath, intArg, numberArg, tableWidth } from '../parse-args.ts';
import { defaultResourceLimits } from '../../../runtime/sandbox/resource-limits.ts';
import { parseSettings, selectsMatrix } from '../../matrix/matrix-selection.ts';
import { DEFAULT_COST_WEIGHTS } from '../../matrix/run-matrix.ts';
import { COMPARE_SETTINGS, runMatrixCompare, TIGHTNESS_PER_CLUSTER, type MatrixArmSpec } from '../../compare/run-matrix-compare.ts';

const HELP = `
A and B are two report JSONs (bench run --json ...), compared as they are; or the literal pair
\`v1 v2\`: the A3 protocol runs twice with the same seeds and workloads, once per pattern-store
fingerprint version (v2 with --embedding-provider), each with its own trace DB and patterns DB under
<out-dir>/compare-<UTC-ts>/, then the two reports are compared. The run flags apply to \`v1 v2\` and --arm only.
Or, instead of A and B, two routing configurations: --arm LABEL=routing.yaml twice. Each arm runs the
A3 protocol with its file as the global routing config (rules, tiers, pattern knobs such as
pattern.scoring, pattern.min_similarity, fingerprint_version, embedding_provider), on the same seeds and
workloads, with its own DBs (<label>.db, <label>.patterns.db, <label>.json) under the same folder.

Each metric gets A, B, the delta B - A and a 95% CI paired on the (pass, workload, rep) units both
reports hold, with standard errors clustered by workload (a report against itself: every interval
[0, 0]), the units and workloads behind it and the arms' correlation; then the cluster-tightness verdict
(the tightness test; results in docs/results.md and docs/decisions.md):
v2 intra >= v1 intra + 0.10 and v2 inter <= v1 inter - 0.05.

A and B may instead be two multi-run summaries (<base>.runs.json of bench run --runs N / --seeds): the
runs pair by seed (the seed sets must match; exit 2 names the unmatched seeds), each metric's paired
difference is taken within each seed and the differences are combined with the headline's two-level
interval, which includes the between-run variance. \`v1 v2 --runs N\` and \`--arm ... --runs N\` run each
arm N times (seeds --seed, --seed+1, ...; or --seeds a,b,c) and compare them the same way.

Savings and solved rate are stated in the verdict grammar: "saved X% [lo, hi]" only when the whole
interval of B's savings against A is above 0, else "no saving shown (...)" or "cost more"; B's solved rate
against A as non-inferiority at --margin points (default ${DEFAULT_MARGIN_PTS}). Differences of rates print in pts.

Routing is judged out of sample: v1 v2 and --arm run Pass C leave-one-workload-out too (pass C-oos,
--holdout workload, the default), and the comparison says which pass it judged. When both arms route every
unit identically it says the comparison cannot distinguish them here, and why, instead of a table of zeros.

On a matrix workload (--workload <matrix>, e.g. routellm-gsm8k), \`v1 v2\` and --arm run the matrix protocol
for each arm on the same tasks, folds, seed and cost weights (<label>.db, <label>.json under compare-<ts>/),
by default both cross-fits (unseen_tasks, new_workspace: out of sample, and the output says so), and compare
them task by task at every cost_weight: solved rate, cost per task and hull gap, B − A with 95% intervals
cluster-robust (CR2) over the matrix's clusters, worded by the verdict grammar; "cannot distinguish" when
both arms chose the same model for every task. It also reports cluster tightness on the matrix's own
clusters (v1 structural vs v2 hybrid fingerprints of a sample of tasks) and the tightness test there.
The artifact follows schemas/matrix-compare.schema.json.

The JSON artifact (schemas/compare.schema.json) goes to --json, else beside the reports.
--fail-on-regression: exit 1 when B is worse than A on a watched metric by more than its 95% paired
interval (the whole interval of B - A on the worse side of 0); a change whose interval holds 0 is
noise and passes. Watched: --regression-metrics (default ${DEFAULT_REGRESSION_METRICS.join(',')}) in
--regression-scopes (default ${DEFAULT_REGRESSION_SCOPES.join(',')}; e.g. 'aggregate,pass C').

Exit codes: 0 compared (and, with --fail-on-regression or --fail-on-verdict, nothing failed); 1 a regression, or a FAIL verdict with --fail-on-verdict; 2 a report is missing or invalid (the message names the file), or a run setup error.
Examples:
  npx bench compare reports/.runs/last-night.json reports/.runs/tonight.json
  npx bench compare v1 v2 --seed-passes 3 --include-marginal
  npx bench compare reports/.runs/a.runs.json reports/.runs/b.runs.json
  npx bench compare v1 v2 --seed-passes 3 --include-marginal --runs 3
  npx bench compare --arm uniform=a.yaml --arm weighted=b.yaml --seed-passes 3 --include-marginal
  npx bench compare v1 v2 --workload routellm-gsm8k --embedding-provider local:hashing-384 --cost-weights 0,0.1,0.3`;

interface CompareFlags {
  width?: number;
  wide?: boolean;
  arm: string[];
  workload: string[];
  workloadsDir: string;
  includeMarginal: boolean;
  model: string;
  baseline: string;
  seedPasses: number;
  seed: number;
  embeddingProvider: string;
  outDir?: string;
  json?: string;
  force: boolean;
  quiet: boolean;
  failOnRegression: boolean;
  failOnVerdict: boolean;
  regressionMetrics: string;
  regressionScopes: string;
  holdout: 'workload' | 'none';
  runs?: number;
  seeds?: string;
  margin?: number;
  models?: string;
  costWeights?: string;
  folds: number;
  matrixSettings?: string;
  tightnessPerCluster: number;
}

/** What the command reads from outside: the runner and the clock (tests pass stand-ins). */
export interface CompareCommandDeps {
  runSuite: RunSuiteFn;
  nowUs(): number;
}

function sharedRun(o: CompareFlags, io: CliIO): SharedRunOptions {
  return {
    workloadsDir: o.workloadsDir,
    workloadNames: o.workload,
    includeMarginal: o.includeMarginal,
    provider: 'auto',
    model: o.model,
    baseline: o.baseline,
    seedPasses: o.seedPasses,
    seed: o.seed,
    temperature: 0,
    showProgress: io.isTTY && !o.quiet,
    // Routing is judged out of sample by default: in sample each turn finds its own seeded twin under either arm.
    holdout: o.holdout === 'none' ? null : 'workload',
  };
}

/** What compare compares: two reports, or two multi-run summaries paired by seed. */
type Inputs = { kind: 'reports'; a: CompareInput; b: CompareInput; artifactDir: string; ran: boolean } | { kind: 'runs'; a: RunsInput; b: RunsInput; artifactDir: string; ran: boolean };

/** `v1 v2 --runs N` / `--arm … --runs N`: each arm run once per seed, like `bench run --runs N`, then compared by seed. */
async function seededInputs(a: string | undefined, b: string | undefined, seeds: readonly number[], o: CompareFlags, io: CliIO, deps: CompareCommandDeps): Promise<Inputs> {
  const shared = sharedRun(o, io);
  const dir = abRunDir(io.cwd, o.outDir ?? 'reports/.runs', deps.nowUs());
  const base = (label: string): RunSuiteOptions => ({ ...shared, protocol: 'a3', dbPath: join(dir, `${label}.db`), jsonPath: null, patternsDbPath: null });
  if (o.arm.length > 0) {
    if (a !== undefined) throw new SetupError(`compare: give either two reports (or v1 v2) or --arm twice, not both (got '${a}' and --arm)`);
    const [x, y] = loadConfigArms(o.arm, io.cwd);
    const arm = (c: typeof x) => ({ label: c.label, options: { ...base(c.label), routingConfigPath: c.path } });
    const [ra, rb] = await runArmsOverSeeds([arm(x), arm(y)], seeds, io, deps.runSuite, deps.nowUs());
    return { kind: 'runs', a: ra, b: rb, artifactDir: dir, ran: true };
  }
  if (a !== 'v1' || b !== 'v2') throw new SetupError(`--runs/--seeds run the arms themselves: they apply to \`compare v1 v2\` and --arm; to compare finished runs give their two <base>.runs.json files as A and B (got '${a ?? ''}' '${b ?? ''}')`);
  const version = (v: 'v1' | 'v2') => ({ label: v, options: withFingerprint(base(v), { fingerprintVersion: v, embeddingProvider: v === 'v2' ? o.embeddingProvider : null }) });
  const [ra, rb] = await runArmsOverSeeds([version('v1'), version('v2')], seeds, io, deps.runSuite, deps.nowUs());
  return { kind: 'runs', a: ra, b: rb, artifactDir: dir, ran: true };
}

async function inputsFor(a: string | undefined, b: string | undefined, o: CompareFlags, io: CliIO, deps: CompareCommandDeps): Promise<Inputs> {
  const seeds = seedsFor({ seed: o.seed, runs: o.runs ?? null, seeds: o.seeds ?? null });
  if (seeds) return seededInputs(a, b, seeds, o, io, deps);
  if (o.arm.length > 0) {
    if (a !== undefined) throw new SetupError(`compare: give either two reports (or v1 v2) or --arm twice, not both (got '${a}' and --arm)`);
    // Every arm file is checked before either arm runs.
    const arms = loadConfigArms(o.arm, io.cwd);
    const ab = await runConfigAb({ run: sharedRun(o, io), arms, outDir: o.outDir ?? 'reports/.runs', nowUs: deps.nowUs() }, io, deps.runSuite);
    const [x, y] = ab.arms;
    return {
      kind: 'reports',
      a: { report: x.result.report, path: x.result.jsonPath, label: x.arm.label },
      b: { report: y.result.report, path: y.result.jsonPath, label: y.arm.label },
      artifactDir: ab.dir,
      ran: true,
    };
  }
  if (a === undefined || b === undefined) throw new SetupError('compare: give two report JSONs, the pair v1 v2, or --arm LABEL=routing.yaml twice (see bench compare --help)');
  if (a === 'v1' && b === 'v2') {
    const ab = await runFingerprintAb(
      {
        run: sharedRun(o, io),
        outDir: o.outDir ?? 'reports/.runs',
        embeddingProvider: o.embeddingProvider,
        nowUs: deps.nowUs(),
      },
      io,
      deps.runSuite,
    );
    return {
      kind: 'reports',
      a: { report: ab.v1.report, path: ab.v1.jsonPath, label: 'v1' },
      b: { report: ab.v2.report, path: ab.v2.jsonPath, label: 'v2' },
      artifactDir: ab.dir,
      ran: true,
    };
  }
  const pa = resolve(io.cwd, a);
  const pb = resolve(io.cwd, b);
  const runsA = isRunsSummaryFile(pa);
  const runsB = isRunsSummaryFile(pb);
  if (runsA !== runsB)
    throw new SetupError(`compare: ${runsA ? pa : pb} is a multi-run summary (bench run --runs) and ${runsA ? pb : pa} a single report; compare two <base>.runs.json files, or two report JSONs (a run's own report is <base>.seed-<s>.json)`);
  if (runsA) {
    const ra = loadRunsSummary(pa, fileLabel(pa, 'A'));
    const rb = loadRunsSummary(pb, fileLabel(pb, 'B', fileLabel(pa, 'A')));
    return { kind: 'runs', a: ra, b: rb, artifactDir: o.outDir ? resolve(io.cwd, o.outDir) : dirname(pb), ran: false };
  }
  const ra = loadReport(pa);
  const rb = loadReport(pb);
  return {
    kind: 'reports',
    // Columns are named after the files, so a reader sees which report is which.
    a: { report: ra.report, path: ra.path, label: fileLabel(ra.path, 'A') },
    b: { report: rb.report, path: rb.path, label: fileLabel(rb.path, 'B', fileLabel(ra.path, 'A')) },
    artifactDir: o.outDir ? resolve(io.cwd, o.outDir) : dirname(rb.path),
    ran: false,
  };
}

/** A report's column label: its file name without `.json`; `fallback` when that would repeat the other side's. */
function fileLabel(path: string, fallback: string, other?: string): string {
  const name = basename(path).replace(/(\.runs)?\.json$/, '');
  return name === other ? fallback : name;
}

/** v1 v2 / --arm on a matrix workload: both arms through the matrix protocol on the same folds and seed. */
async function compareMatrix(a: string | undefined, b: string | undefined, o: CompareFlags, io: CliIO, deps: CompareCommandDeps): Promise<number> {
  let arms: [MatrixArmSpec, MatrixArmSpec];
  if (o.arm.length > 0) {
    if (a !== undefined) throw new SetupError(`compare: give either v1 v2 or --arm twice, not both (got '${a}' and --arm)`);
    const [x, y] = loadConfigArms(o.arm, io.cwd);
    arms = [x, y].map((c) => ({ label: c.label, fingerprintVersion: null, embeddingProvider: null, routingConfigPath: c.path })) as [MatrixArmSpec, MatrixArmSpec];
  } else if (a === 'v1' && b === 'v2') {
    arms = [
      { label: 'v1', fingerprintVersion: 'v1', embeddingProvider: null, routingConfigPath: null },
      { label: 'v2', fingerprintVersion: 'v2', embeddingProvider: o.embeddingProvider, routingConfigPath: null },
    ];
  } else throw new SetupError(`compare --workload ${o.workload[0]!} (a matrix workload): give \`v1 v2\` or --arm LABEL=routing.yaml twice; two finished matrix runs are not compared from their files`);
  if (o.runs !== undefined || o.seeds !== undefined) throw new SetupError('--runs/--seeds apply to agent workloads; a matrix comparison pairs every task under one --seed (change --seed to repeat it)');
  const costWeights = o.costWeights ? o.costWeights.split(',').map((w) => Number(w.trim())) : DEFAULT_COST_WEIGHTS;
  if (costWeights.some((w) => !(w >= 0 && w <= 1))) throw new SetupError(`--cost-weights: each must be a number in [0, 1]; got ${o.costWeights}`);
  const { text } = await runMatrixCompare(
    {
      workloadDir: join(resolve(io.cwd, o.workloadsDir), o.workload[0]!),
      models: o.models ? o.models.split(',').map((m) => m.trim()) : null,
      costWeights,
      folds: o.folds,
      seed: o.seed,
      settings: o.matrixSettings ? parseSettings(o.matrixSettings) : COMPARE_SETTINGS,
      arms,
      dir: abRunDir(io.cwd, o.outDir ?? 'reports/.runs', deps.nowUs()),
      jsonPath: o.json ?? null,
      tightnessPerCluster: o.tightnessPerCluster,
    },
    { cwd: io.cwd, env: io.env, progress: (t) => (o.quiet ? undefined : io.progress(`${t}\n`)) },
  );
  io.out(text);
  return 0;
}

/** `bench compare` with its runner and clock passed in. */
export function createCompareCommandSpec(deps: CompareCommandDeps): CommandSpec {
  return {
    configure(cmd: Command) {
      cmd
        .argument('[a]', 'report JSON of arm A, `v1`, or `cache-off` (with `cache-on` and --workload cache-*: a query stream with the semantic cache off vs on, paired by query)')
        .argument('[b]', 'report JSON of arm B, or `v2` (omit with --arm)')
        .option('--arm <label=path>', 'an arm as a routing.yaml, run through A3 (give exactly two; instead of A and B)', collect, [])
        .option('--workload <name>', '(v1 v2, --arm) run this workload by name (repeatable)', collect, [])
        .option('--workloads-dir <dir>', '(v1 v2, --arm) where workloads live', './workloads')
        .option('--include-marginal', '(v1 v2, --arm) include signal_strength: marginal workloads', false)
        .option('--model <id>', '(v1 v2, --arm) cheap model of Pass A and the routing default', 'anthropic:claude-haiku-4-5')
        .option('--baseline <id>', '(v1 v2, --arm) strong model of Pass B and the re-priced counterfactual', 'anthropic:claude-sonnet-4-6')
        .option('--seed-passes <n>', '(v1 v2, --arm) reps per workload per pass', intArg('--seed-passes', 1, defaultResourceLimits().run.seed_passes_max), 1)
        .option('--seed <n>', "(v1 v2, --arm) the simulated provider's randomness, the same for both arms", intArg('--seed', 0), 0)
        .option('--embedding-provider <id>', '(v1 v2) embedder of the v2 arm: local:hashing-384, local:use-lite (offline, semantic), openai:<model>, cohere:<model>', DEFAULT_EMBEDDING_PROVIDER)
        .option('--runs <n>', '(v1 v2, --arm) run each arm N times (seeds --seed, --seed+1, ...) and compare runs paired by seed, with the two-level interval', intArg('--runs', 1, defaultResourceLimits().run.runs_max))
        .option('--seeds <list>', '(v1 v2, --arm) the runs\' seeds, comma-separated (instead of --runs N)')
        .option('--margin <pts>', `solved-rate non-inferiority margin in points for B against A (default ${DEFAULT_MARGIN_PTS})`, numberArg('--margin', 0, 100))
        .addOption(new Option('--holdout <kind>', '(v1 v2, --arm) workload (default): also run Pass C leave-one-workload-out (pass C-oos) and judge routing there; none: in sample only').choices(['workload', 'none']).default('workload'))
        .option('--out-dir <dir>', 'v1 v2 and --arm: parent of the compare-<ts>/ run folder (default reports/.runs); files: where the artifact goes (default B’s folder)')
        .option('--models <list>', '(matrix workloads) the candidate pool, comma-separated model ids (default every model of the matrix)')
        .option('--cost-weights <list>', `(matrix workloads) slot 4 cost_weight values, one operating point each (default ${DEFAULT_COST_WEIGHTS.join(',')})`)
        .option('--folds <n>', '(matrix workloads) cross-fit folds, the same for both arms', intArg('--folds', 2), 5)
        .option('--matrix-settings <list>', `(matrix workloads) settings both arms play (default ${COMPARE_SETTINGS.join(',')}: out of sample)`)
        .option('--tightness-per-cluster <n>', '(matrix workloads) tasks per cluster sampled for cluster tightness and the tightness test', intArg('--tightness-per-cluster', 2), TIGHTNESS_PER_CLUSTER)
        .option('--json <path>', 'write the compare artifact here')
        .option('--quiet', '(v1 v2, --arm) no progress output', false)
        .option('--fail-on-verdict', 'exit 1 when the cluster-tightness verdict (pattern store v2 vs v1) is FAIL', false)
        .option('--fail-on-regression', 'exit 1 when B is worse than A by more than the 95% CI on a watched metric', false)
        .option('--regression-metrics <list>', 'comma list of metrics --fail-on-regression watches', DEFAULT_REGRESSION_METRICS.join(','))
        .option('--regression-scopes <list>', "comma list of row scopes it watches ('aggregate', 'pass C', ...)", DEFAULT_REGRESSION_SCOPES.join(','))
        .addHelpText('after', HELP);
      addWidthOptions(cmd);
      addForceOption(cmd);
    },
    async run(cmd, args, io) {
      const o = cmd.opts<CompareFlags>();
      if (o.json) freshOutputPath(io.cwd, o.json, { flag: '--json', force: o.force });
      if (args[0] === 'cache-off' && args[1] === 'cache-on')
        return compareCacheArms({ workloadsDir: resolve(io.cwd, o.workloadsDir), names: o.workload, embedder: cmd.getOptionValueSource('embeddingProvider') === 'cli' ? o.embeddingProvider : null, penalty: 10, json: o.json ?? null, width: tableWidth(o, io) }, io);
      if (o.workload.length > 0 && selectsMatrix(resolve(io.cwd, o.workloadsDir), o.workload)) return compareMatrix(args[0] as string | undefined, args[1] as string | undefined, o, io, deps);
      const inputs = await inputsFor(args[0] as string | undefined, args[1] as string | undefined, o, io, deps);
      const options = { marginPts: o.margin ?? DEFAULT_MARGIN_PTS };
      const artifact = inputs.kind === 'runs' ? compareRuns(inputs.a, inputs.b, options) : compareReports(inputs.a, inputs.b, options);
      const jsonPath = o.json ? resolve(io.cwd, o.json) : inputs.ran ? resolve(inputs.artifactDir, 'compare.json') : artifactPathFor(inputs.artifactDir, inputs.a.path!, inputs.b.path!);
      writeCompareArtifact(jsonPath, artifact);
      io.out(renderCompareTable(artifact, { json: jsonPath, width: tableWidth(o, io) }));
      // --fail-on-verdict: the §16.10 test-5 FAIL sets the exit code (a PASS or NOT_APPLICABLE does not).
      const verdictFailed = o.failOnVerdict && artifact.tightness_verdict?.verdict === 'fail';
      if (verdictFailed) io.out('FAIL: the cluster-tightness verdict failed (--fail-on-verdict)');
      if (!o.failOnRegression) return verdictFailed ? 1 : 0;
      const list = (v: string) => v.split(',').map((x) => x.trim()).filter(Boolean);
      const metrics = list(o.regressionMetrics);
      const unknown = unknownMetrics(artifact, metrics);
      if (unknown.length) throw new SetupError(`--regression-metrics: no such metric in this comparison: ${unknown.join(', ')} (metrics: ${[...new Set(artifact.rows.map((r) => r.metric))].join(', ')})`);
      const findings = findRegressions(artifact, metrics, list(o.regressionScopes));
      io.out('');
      io.out(`Regression check (${metrics.join(', ')} in ${list(o.regressionScopes).join(', ')}):`);
      for (const line of renderRegressionLines(findings)) io.out(`  ${line}`);
      const regressions = findings.filter((f) => f.verdict === 'regression');
      io.out(regressions.length ? `FAIL: ${regressions.length} regression(s) beyond the 95% CI` : 'OK: no regression beyond the 95% CI');
      return regressions.length || verdictFailed ? 1 : 0;
    },
  };
}

/** `bench compare A B` (spec §8.4). */
export const compareCommandSpec: CommandSpec = createCompareCommandSpec({ runSuite, nowUs: () => createSystemClock().nowUs() });
