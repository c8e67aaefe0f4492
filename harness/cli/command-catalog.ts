import { HIGH_SIGNAL_GAP } from '../signal/signal-verdict.ts';
import type { CommandSpec } from './command.ts';

/**
 * One `bench` command as `bench --help` lists it, with its module behind `load`: a call loads only the
 * command it names, so `--help` and `bench list` do not pay for the SDKs, the runner and the charts.
 */
export interface CatalogEntry {
  name: string;
  /** What follows the name in `bench --help`: `[options]` and the arguments, as commander prints them once configured. */
  usage: string;
  description: string;
  load(): Promise<CommandSpec>;
}

/** Every `bench` command, in the order `bench --help` lists them. */
export const COMMAND_CATALOG: readonly CatalogEntry[] = [
  {
    name: 'run',
    usage: '[options]',
    description: 'Run workloads through the Metis runtime and print the savings and quality report.',
    load: async () => (await import('./commands/run.ts')).runCommandSpec,
  },
  {
    name: 'list',
    usage: '[options]',
    description:
      'List the workloads with their signal verdict (and who measured it), turn count and description, then the cache query streams (set, queries, must-miss count) and the matrix workloads (tasks, models, clusters, licence).',
    load: async () => (await import('./commands/list.ts')).listCommandSpec,
  },
  {
    name: 'validate',
    usage: '[options] [paths...]',
    description:
      'Validate workload files (workload.yaml, sim.yaml, cheats.yaml, fixture links), cache query streams (stream.yaml) and matrix workloads (kind: matrix, their outcomes file); --deep also red-teams the hidden checks; exit 2 on any error.',
    load: async () => (await import('./commands/validate.ts')).validateCommandSpec,
  },
  {
    name: 'analyze',
    usage: '[options]',
    description: "Recompute a run's report from an existing trace DB, with no model calls (analyze = bench analyze).",
    load: async () => (await import('./commands/analyze.ts')).analyzeCommandSpec,
  },
  {
    name: 'report',
    usage: '[options] [run]',
    description: 'Render a finished run for a slide deck or a CI summary: table, Markdown, self-contained HTML with charts, or JSON.',
    load: async () => (await import('./commands/report.ts')).reportCommandSpec,
  },
  {
    name: 'compare',
    usage: '[options] [a] [b]',
    description:
      'Compare two finished reports, or run pattern store v1 against v2 on the same seeds (`compare v1 v2`), with paired CIs and the cluster-tightness verdict.',
    load: async () => (await import('./commands/compare.ts')).compareCommandSpec,
  },
  {
    name: 'signal',
    usage: '[options]',
    description: `Measure workloads' cheap-vs-strong gap on the gated score and the solved rate (4 reps each at temperature 0); high when the score gap is >= ${HIGH_SIGNAL_GAP}.`,
    load: async () => (await import('./commands/signal.ts')).signalCommandSpec,
  },
  {
    name: 'view',
    usage: '[options] [db...]',
    description: 'Browse runs, reports, compares and single reps of trace DBs in a local, read-only web viewer.',
    load: async () => (await import('./commands/view.ts')).viewCommandSpec,
  },
  {
    name: 'merge',
    usage: '[options] <dbs...>',
    description: 'Merge the shard DBs of one run (made on several machines) into one trace DB and pattern store.',
    load: async () => (await import('./commands/merge.ts')).mergeCommandSpec,
  },
  {
    name: 'export',
    usage: '[options]',
    description: 'Export runs of a trace DB as OpenTelemetry GenAI spans (OTLP/JSON file or OTLP/HTTP) or Inspect eval logs.',
    load: async () => (await import('./commands/export.ts')).exportCommandSpec,
  },
  {
    name: 'import',
    usage: '[options] <source> [inputs...]',
    description:
      'Import recorded outcomes (RouteLLM CSVs, the SWE-bench leaderboard) as a matrix workload (kind: matrix); exit 2 on any bad input, with nothing written.',
    load: async () => (await import('./commands/import.ts')).importCommandSpec,
  },
  {
    name: 'plan',
    usage: '[options]',
    description: 'Size a benchmark from a pilot run: workloads × reps × runs (and USD) for a target interval width or to decide non-inferiority.',
    load: async () => (await import('./commands/plan.ts')).planCommandSpec,
  },
];

/** The catalog entry named `name`, if there is one. */
export function catalogEntry(name: string | undefined): CatalogEntry | undefined {
  return COMMAND_CATALOG.find((e) => e.name === name);
}

/**
 * The command an argument list asks for, read the way commander will: the first word that is not an
 * option, or the word after `help` (`bench help run`). Undefined when it names no command.
 */
export function requestedCommand(argv: readonly string[]): CatalogEntry | undefined {
  const words = argv.filter((a) => !a.startsWith('-'));
  return catalogEntry(words[0] === 'help' ? words[1] : words[0]);
}
