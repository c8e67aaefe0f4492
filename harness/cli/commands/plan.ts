import { resolve } from 'node:path';
import type { Command } from 'commander';
import { loadPilot } from '../../plan/pilot.ts';
import { planFrom, renderPlan } from '../../plan/plan-report.ts';
import type { CommandSpec } from '../command.ts';
import { numberArg } from '../parse-args.ts';
import { SetupError } from '../../errors.ts';

const HELP = `
Reads a pilot (an A3 report JSON, or the .runs.json summary of bench run --runs N), estimates the variance
components of Pass C − Pass B's solved rate (between workloads, between runs, between reps), and prints
for 1, 2, 3, 5 and 10 runs the workloads × reps that reach (1) a 95% interval of --width points and
(2) a decision on non-inferiority at --margin points, each with its USD cost at the pilot's prices.
One pilot run cannot estimate the between-run variance: pilot with --runs 3.

Exit codes: 0 planned; 2 the pilot file is missing, invalid or not an A3 run.
Examples:
  npx bench run --protocol a3 --seed-passes 3 --runs 3 --include-marginal --db-path reports/.runs/pilot.db
  npx bench plan --from reports/.runs/pilot.runs.json --margin 5 --width 10`;

/** `bench plan`: workloads × reps × runs for a target interval width or a non-inferiority decision (issue 23 item 6). */
export const planCommandSpec: CommandSpec = {
  configure(cmd: Command) {
    cmd
      .requiredOption('--from <json>', 'pilot: an A3 report JSON or a bench run --runs summary (.runs.json)')
      .option('--margin <pts>', 'non-inferiority margin in points of solved rate', numberArg('--margin', 0.1, 100), 5)
      .option('--width <pts>', 'target width of the 95% interval in points (half-width = width / 2)', numberArg('--width', 0.1, 200), 10)
      .option('--power <p>', 'chance the planned interval decides if the pilot difference is the truth', numberArg('--power', 0.5, 0.99), 0.8)
      .addHelpText('after', HELP);
  },
  async run(cmd, _args, io) {
    const o = cmd.opts<{ from: string; margin: number; width: number; power: number }>();
    if (!o.from) throw new SetupError('bench plan needs --from <pilot.json>');
    const pilot = loadPilot(resolve(io.cwd, o.from));
    const req = { marginPts: o.margin, widthPts: o.width, power: o.power };
    for (const line of renderPlan(planFrom(pilot, req), pilot, req)) io.out(line);
    return 0;
  },
};
