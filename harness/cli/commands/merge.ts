import { resolve } from 'node:path';
import type { CommandSpec } from '../command.ts';
import { mergeRun } from '../../merge/merge-run.ts';
import { sealKeyFrom } from '../../runs/run-seal.ts';

const HELP = `
Merges the shard DBs of one run (bench run --shard I/N, e.g. a CI matrix) into one trace DB and one
pattern store (<out>.patterns.db). Each shard's pattern store is looked up beside its DB
(x.db -> x.patterns.db), else at the path the shard recorded.
Refuses (exit 2, naming it) shards of different runs, suites, commits or price tables, overlapping
shards, missing shards, shards that did not finish (bench run --resume them first), and shards (or
their pattern stores) changed after they were sealed, or that together miss or repeat a planned job.
With METIS_SEAL_KEY set (e.g. from a CI secret) every seal is an HMAC under it: run the shards and the
merge with the same key. Without it seals are tamper-evident only (docs/threat-model.md); the merge says which.
Passes no input ran are left out (merge Passes A,B, run C,D on the merged store, then merge again).

Example (A3 over 3 machines):
  npx bench run --protocol a3 --passes A,B --shard 1/3 --db-path s1.db    (and 2/3, 3/3)
  npx bench merge s1.db s2.db s3.db --out ab.db
  npx bench run --protocol a3 --passes C,D --patterns-db-path ab.patterns.db --db-path cd.db
  npx bench merge s1.db s2.db s3.db cd.db --out run.db
  npx analyze --skip-execute --db-path run.db`;

/** `bench merge DB... --out DB` (harness-and-runtime.md §2). */
export const mergeCommandSpec: CommandSpec = {
  configure(cmd) {
    cmd
      .argument('<dbs...>', 'the shard trace DBs')
      .requiredOption('--out <db>', 'the merged trace DB to create (its pattern store goes beside it)')
      .addHelpText('after', HELP);
  },
  async run(cmd, args, io) {
    const dbs = (args[0] as string[]).map((p) => resolve(io.cwd, p));
    const out = resolve(io.cwd, cmd.opts<{ out: string }>().out);
    const r = mergeRun(dbs, out, { sealKey: sealKeyFrom(io.env) });
    io.out(`merged ${r.mergedFrom.length} DB(s) of run ${r.runId} (${r.mergedFrom.join('; ')}): ${r.reps} rep(s), passes ${r.passes.join(',')}`);
    io.out(`  trace DB:      ${r.outPath}`);
    io.out(`  pattern store: ${r.patternsPath ?? '(none: no input had one)'}`);
    io.out(`  seals:         ${r.seal}`);
    io.out(`Report: npx analyze --skip-execute --db-path ${r.outPath}`);
    return 0;
  },
};
