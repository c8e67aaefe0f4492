import { resolve } from 'node:path';
import { SetupError } from '../../errors.ts';
import { importRoutellm } from '../../matrix/import-routellm.ts';
import { importSwebenchLeaderboard } from '../../matrix/import-swebench.ts';
import { matrixSummary, type MatrixSummary } from '../../matrix/matrix-summary.ts';
import type { CommandSpec } from '../command.ts';
import type { CliIO } from '../../io/cli-io.ts';

const HELP = `
Sources:
  routellm <csv...> --out DIR
      RouteLLM's evaluation CSVs (mmlu_<subject>.csv, gsm8k_responses.csv from lm-sys/RouteLLM routellm/evals).
      MMLU subjects become clusters; GSM8K is split into 10 clusters by prompt length. Prompts listed in a
      contaminated_prompts.jsonl beside the CSVs are left out, as RouteLLM does. Cost: o200k token counts at
      each model's list price (runtime/data/prices.json). The LICENSE beside the CSVs (or --licence) is copied.
  swebench-leaderboard --leaderboards FILE --problems FILE.jsonl [--leaderboard bash-only] --out DIR
      swebench.com's data/leaderboards.json (CC BY-NC: download it yourself) and the SWE-bench problems as
      JSONL (instance_id, repo, problem_statement). Repositories become clusters; cost is the recorded USD.
      Entries without per_instance_details, or whose per-instance resolved rate is more than 5 points off
      their headline, are skipped with a note (--strict: refused, exit 2).

The workload is written to a temp directory and renamed into DIR at the end: a bad input exits 2 and leaves
nothing behind. DIR's name becomes the workload name.

Examples:
  npx bench import routellm ../data/routellm-evals/mmlu/mmlu_*.csv --out workloads/routellm-mmlu
  npx bench import swebench-leaderboard --leaderboards leaderboards.json --problems verified.jsonl --out workloads/swebench-bash-only`;

interface ImportOpts {
  out: string;
  licence?: string;
  sourceCommit?: string;
  leaderboards?: string;
  problems?: string;
  leaderboard?: string;
  exclude: string[];
  strict: boolean;
}

/** Refuses an option that belongs to the other source. */
function refuseOthers(source: string, o: ImportOpts, names: (keyof ImportOpts)[]): void {
  for (const n of names) {
    const v = o[n];
    if (v !== undefined && v !== false && !(Array.isArray(v) && v.length === 0))
      throw new SetupError(`bench import ${source}: --${n.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} belongs to the other source (see bench import --help)`);
  }
}

function printMatrix(io: CliIO, outDir: string, s: MatrixSummary): void {
  io.out(`wrote ${outDir}: ${s.tasks} tasks × ${s.models.length} models, ${s.clusters} clusters`);
  for (const r of s.models) io.out(`  ${r.id.padEnd(40)} solved ${(100 * r.solvedRate).toFixed(1).padStart(5)}%   mean cost $${r.meanCostUsd.toFixed(6)} a task`);
}

/** `bench import SOURCE ...`: turns public recorded-outcome data into a matrix workload. */
export const importCommandSpec: CommandSpec = {
  configure(cmd) {
    cmd
      .argument('<source>', 'routellm | swebench-leaderboard')
      .argument('[inputs...]', 'routellm: the CSV files')
      .requiredOption('--out <dir>', 'the workload directory to create (its name is the workload name)')
      .option('--licence <file>', "routellm: the data set's licence file (default: LICENSE beside the CSVs or one directory up)")
      .option('--source-commit <sha>', 'routellm: the upstream commit the CSVs come from, recorded in the source URL')
      .option('--leaderboards <file>', 'swebench-leaderboard: leaderboards.json')
      .option('--problems <file>', 'swebench-leaderboard: the problems JSONL (instance_id, repo, problem_statement)')
      .option('--leaderboard <name>', 'swebench-leaderboard: which leaderboard (default bash-only)')
      .option('--exclude <name>', 'swebench-leaderboard: leave out an entry by name or folder (repeatable)', (v: string, acc: string[]) => [...acc, v], [])
      .option('--strict', 'swebench-leaderboard: refuse (exit 2) instead of skipping an entry with a note', false)
      .addHelpText('after', HELP);
  },
  async run(cmd, args, io) {
    const source = args[0] as string;
    const inputs = ((args[1] as string[] | undefined) ?? []).map((p) => resolve(io.cwd, p));
    const o = cmd.opts<ImportOpts>();
    const out = resolve(io.cwd, o.out);
    if (source === 'routellm') {
      refuseOthers(source, o, ['leaderboards', 'problems', 'leaderboard', 'exclude', 'strict']);
      const r = await importRoutellm({ csvs: inputs, out, progress: (t) => io.progress(t), ...(o.licence ? { licence: resolve(io.cwd, o.licence) } : {}), ...(o.sourceCommit ? { sourceCommit: o.sourceCommit } : {}) });
      for (const n of r.notes) io.err(`note: ${n}`);
      const rows = r.files.reduce((s, f) => s + f.rows, 0);
      io.out(`read ${rows} prompts from ${r.files.length} CSV file(s); left out ${r.contaminatedDropped} contaminated prompt(s) (contaminated_prompts.jsonl, as RouteLLM does)`);
      printMatrix(io, r.outDir, r.summary);
      return 0;
    }
    if (source === 'swebench-leaderboard') {
      refuseOthers(source, o, ['licence', 'sourceCommit']);
      if (inputs.length) throw new SetupError(`bench import swebench-leaderboard: unexpected argument ${inputs[0]} (pass the files with --leaderboards and --problems)`);
      if (!o.leaderboards || !o.problems) throw new SetupError('bench import swebench-leaderboard: needs --leaderboards FILE and --problems FILE.jsonl');
      const r = await importSwebenchLeaderboard({
        leaderboards: resolve(io.cwd, o.leaderboards),
        problems: resolve(io.cwd, o.problems),
        out,
        exclude: o.exclude,
        strict: o.strict,
        ...(o.leaderboard ? { leaderboard: o.leaderboard } : {}),
      });
      for (const s of r.skipped) io.err(`note: skipped entry '${s.name}': ${s.reason}`);
      io.out(`imported ${r.imported.length} entr${r.imported.length === 1 ? 'y' : 'ies'}, skipped ${r.skipped.length}`);
      printMatrix(io, r.outDir, matrixSummary(r.matrix));
      return 0;
    }
    throw new SetupError(`bench import: unknown source '${source}' (use routellm or swebench-leaderboard)`);
  },
};
