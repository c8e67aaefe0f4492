import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
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
} from '../../compare/index.ts';
import { loadReport } from '../../report/find-report.ts';
import { runSuite } from '../../runner/run-suite.ts';
import type { CliIO, CommandSpec } from '../command.ts';
import { collect, intArg } from '../parse-args.ts';

const HELP = `
A and B are two report JSONs (bench run --json ...), compared as they are; or the literal pair
\`v1 v2\`: the A3 protocol runs twice with the same seeds and workloads, once per pattern-store
fingerprint version (v2 with --embedding-provider), each with its own trace DB and patterns DB under
<out-dir>/compare-<UTC-ts>/, then the two reports are compared. The run flags apply to \`v1 v2\` only.

Each metric gets A, B, the delta B - A and a 95% CI paired on the (pass, workload, rep) units both
reports hold, with standard errors clustered by workload (a report against itself: every interval
[0, 0]), the units and workloads behind it and the arms' correlation; then the pattern-store.md
§16.10 test-5 verdict:
v2 intra >= v1 intra + 0.10 and v2 inter <= v1 inter - 0.05.

The JSON artifact (schemas/compare.schema.json) goes to --json, else beside the reports.
Exit codes: 0 compared; 2 a report is missing or invalid (the message names the file), or a run setup error.
Examples:
  npx bench compare reports/.runs/last-night.json reports/.runs/tonight.json
  npx bench compare v1 v2 --seed-passes 3 --include-marginal`;

interface CompareFlags {
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
  quiet: boolean;
}

/** What the command reads from outside: the runner and the clock (tests pass stand-ins). */
export interface CompareCommandDeps {
  runSuite: RunSuiteFn;
  nowUs(): number;
}

async function inputsFor(a: string, b: string, o: CompareFlags, io: CliIO, deps: CompareCommandDeps): Promise<{ a: CompareInput; b: CompareInput; artifactDir: string }> {
  if (a === 'v1' && b === 'v2') {
    const ab = await runFingerprintAb(
      {
        run: {
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
        },
        outDir: o.outDir ?? 'reports/.runs',
        embeddingProvider: o.embeddingProvider,
        nowUs: deps.nowUs(),
      },
      io,
      deps.runSuite,
    );
    return {
      a: { report: ab.v1.report, path: ab.v1.jsonPath, label: 'v1' },
      b: { report: ab.v2.report, path: ab.v2.jsonPath, label: 'v2' },
      artifactDir: ab.dir,
    };
  }
  const ra = loadReport(resolve(io.cwd, a));
  const rb = loadReport(resolve(io.cwd, b));
  return {
    a: { report: ra.report, path: ra.path, label: 'A' },
    b: { report: rb.report, path: rb.path, label: 'B' },
    artifactDir: o.outDir ? resolve(io.cwd, o.outDir) : dirname(rb.path),
  };
}

/** `bench compare` with its runner and clock passed in. */
export function createCompareCommandSpec(deps: CompareCommandDeps): CommandSpec {
  return {
    name: 'compare',
    description: 'Compare two finished reports, or run pattern store v1 against v2 on the same seeds (`compare v1 v2`), with paired CIs and the cluster-tightness verdict.',
    configure(cmd: Command) {
      cmd
        .argument('<a>', 'report JSON of arm A, or `v1`')
        .argument('<b>', 'report JSON of arm B, or `v2`')
        .option('--workload <name>', '(v1 v2) run this workload by name (repeatable)', collect, [])
        .option('--workloads-dir <dir>', '(v1 v2) where workloads live', './workloads')
        .option('--include-marginal', '(v1 v2) include signal_strength: marginal workloads', false)
        .option('--model <id>', '(v1 v2) cheap model of Pass A and the routing default', 'anthropic:claude-haiku-4-5')
        .option('--baseline <id>', '(v1 v2) strong model of Pass B and the re-priced counterfactual', 'anthropic:claude-sonnet-4-6')
        .option('--seed-passes <n>', '(v1 v2) reps per workload per pass', intArg('--seed-passes', 1), 1)
        .option('--seed <n>', "(v1 v2) the simulated provider's randomness, the same for both arms", intArg('--seed', 0), 0)
        .option('--embedding-provider <id>', '(v1 v2) embedder of the v2 arm', DEFAULT_EMBEDDING_PROVIDER)
        .option('--out-dir <dir>', 'v1 v2: parent of the compare-<ts>/ run folder (default reports/.runs); files: where the artifact goes (default B’s folder)')
        .option('--json <path>', 'write the compare artifact here')
        .option('--quiet', '(v1 v2) no progress output', false)
        .addHelpText('after', HELP);
    },
    async run(cmd, args, io) {
      const o = cmd.opts<CompareFlags>();
      const { a, b, artifactDir } = await inputsFor(args[0] as string, args[1] as string, o, io, deps);
      const artifact = compareReports(a, b);
      const jsonPath = o.json ? resolve(io.cwd, o.json) : a.label === 'v1' ? resolve(artifactDir, 'compare.json') : artifactPathFor(artifactDir, a.path!, b.path!);
      writeCompareArtifact(jsonPath, artifact);
      io.out(renderCompareTable(artifact, { json: jsonPath }));
      return 0;
    },
  };
}

/** `bench compare A B` (spec §8.4). */
export const compareCommandSpec: CommandSpec = createCompareCommandSpec({ runSuite, nowUs: () => createSystemClock().nowUs() });
