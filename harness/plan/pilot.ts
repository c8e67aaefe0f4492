import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Decimal } from 'decimal.js';
import { formatAjvErrors, validatorFor } from '../../runtime/core/schemas.ts';
import type { BenchReport } from '../../schemas/types/report.ts';
import type { MultiRun } from '../../schemas/types/multi-run.ts';
import { SetupError } from '../errors.ts';
import type { PilotUnit } from '../metrics/index.ts';
import { routedPairs } from '../report/headline.ts';
import { loadReport } from '../report/find-report.ts';

/** A pilot for `bench plan`: each run's paired C − B solved differences (points) and what one unit cost. */
export interface Pilot {
  runs: { seed: number; units: PilotUnit[] }[];
  /** USD of one (workload, rep) unit over every pass of the protocol, averaged over the runs. */
  unitCostUsd: Decimal;
  pricingVersion: string;
  simulated: boolean;
  sources: string[];
}

/** Reads a report JSON or a `bench run --runs` summary (schemas/multi-run.schema.json) as a pilot; refuses anything else with the fix. */
export function loadPilot(path: string): Pilot {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new SetupError(`--from ${path}: ${code === 'ENOENT' ? 'no such file' : `not a readable JSON file (${(e as Error).message})`}; give a report JSON of an A3 run or the .runs.json summary of bench run --runs N`);
  }
  const reports: { seed: number; report: BenchReport; path: string }[] = [];
  if (typeof data === 'object' && data !== null && 'multi_run_version' in data) {
    const validate = validatorFor<MultiRun>('multi-run.schema.json');
    if (!validate(data)) throw new SetupError(`--from ${path}: not a valid multi-run summary (${formatAjvErrors(validate.errors)[0]})`);
    for (const r of data.runs) {
      const p = resolve(dirname(path), r.json_path);
      reports.push({ seed: r.seed, report: loadReport(p).report, path: p });
    }
  } else {
    const found = loadReport(path);
    reports.push({ seed: found.report.provenance.seed, report: found.report, path });
  }
  const runs = reports.map(({ seed, report, path: p }) => {
    if (report.provenance.protocol !== 'a3') throw new SetupError(`--from ${p}: protocol ${report.provenance.protocol}; bench plan needs an A3 run (Pass C against the measured Pass B): npx bench run --protocol a3 --seed-passes 3 --runs 3`);
    const pairs = routedPairs(report, 'C');
    if (!pairs) throw new SetupError(`--from ${p}: no (workload, rep) unit ran in both Pass B and Pass C; rerun the A3 protocol without --passes`);
    return { seed, units: pairs.solvedUnits.map((u) => ({ workload: u.cluster, value: 100 * (u.b.num - u.a.num) })), cost: runCost(report), n: pairs.solvedUnits.length };
  });
  const perUnit = runs.map((r) => r.cost.div(r.n));
  const first = reports[0]!.report.provenance;
  return {
    runs: runs.map(({ seed, units }) => ({ seed, units })),
    unitCostUsd: perUnit.reduce((s, x) => s.plus(x), new Decimal(0)).div(perUnit.length),
    pricingVersion: first.pricing_version,
    simulated: first.actual_provider === 'sim',
    sources: reports.map((r) => r.path),
  };
}

/** Every pass's measured spend in a report (Decimal sums of the reps' actual cost). */
function runCost(report: BenchReport): Decimal {
  return report.workloads.reduce((s, w) => w.reps.reduce((t, r) => t.plus(r.savings.actual_repriced_usd), s), new Decimal(0));
}
