import type { Decimal } from 'decimal.js';
import { decisiveHalfWidth, designFor, designHalfWidth, varianceComponents, type Design, type VarianceComponents } from '../metrics/index.ts';
import type { Pilot } from './pilot.ts';

/** What `bench plan` was asked: the non-inferiority margin and the target interval width, both in points. */
export interface PlanRequest {
  marginPts: number;
  widthPts: number;
  power: number;
}

/** A design with its cost at the pilot's prices. */
export interface CostedDesign extends Design {
  costUsd: Decimal;
}

/** A number of runs and the design it allows, or null with the half-width the runs alone cannot get under. */
export interface PlanRow {
  runs: number;
  design: CostedDesign | null;
  /** The half-width with unlimited workloads and reps: the between-run floor t · σ_r / √R. */
  floor: number;
}

/** The plan: the pilot's variance components and, per target, a design for each number of runs. */
export interface Plan {
  components: VarianceComponents;
  unitCostUsd: Decimal;
  width: { halfWidth: number; rows: PlanRow[] };
  nonInferiority: { halfWidth: number; observed: number; rows: PlanRow[] };
}

/** Runs proposed per target: one run (conditional on its learned state) up to ten, plus the runs of the cheapest design. */
export const PLAN_RUNS = [1, 2, 3, 5, 10] as const;

/** The most runs a plan proposes. */
const MAX_RUNS = 200;

/** Estimates the components from the pilot and finds, per number of runs, a design for each target, priced at the pilot's unit cost. */
export function planFrom(pilot: Pilot, req: PlanRequest): Plan {
  if (!(req.widthPts > 0)) throw new RangeError(`--width must be > 0 points, got ${req.widthPts}`);
  const c = varianceComponents(pilot.runs.map((r) => r.units));
  const cost = (d: Design | null): CostedDesign | null => (d ? { ...d, costUsd: pilot.unitCostUsd.times(d.workloads * d.reps * d.runs) } : null);
  const rows = (h: number, power: number): PlanRow[] => {
    const list: number[] = [...PLAN_RUNS];
    // The cheapest design over any number of runs (W·K·R units), when the listed ones do not hold it.
    let cheapest: Design | null = null;
    for (let r = 1; r <= MAX_RUNS; r++) {
      const d = designFor(c, h, r, 0.95, power);
      if (d && (!cheapest || d.workloads * d.reps * d.runs < cheapest.workloads * cheapest.reps * cheapest.runs)) cheapest = d;
    }
    if (cheapest && !list.includes(cheapest.runs)) list.push(cheapest.runs);
    return list
      .sort((a, b) => a - b)
      .map((r) => ({ runs: r, design: cost(designFor(c, h, r, 0.95, power)), floor: designHalfWidth({ workload: 0, run: c.run, residual: 0 }, c.workloads, 1, r, 0.95, power) }));
  };
  const hWidth = req.widthPts / 2;
  const hDecide = decisiveHalfWidth(c.mean, req.marginPts);
  return {
    components: c,
    unitCostUsd: pilot.unitCostUsd,
    width: { halfWidth: hWidth, rows: rows(hWidth, 0.5) },
    nonInferiority: { halfWidth: hDecide, observed: c.mean, rows: rows(hDecide, req.power) },
  };
}

const f1 = (x: number) => x.toFixed(1);
const usd = (d: Decimal) => `$${d.toDecimalPlaces(2).toFixed(2)}`;

/** The plan as lines for stdout. */
export function renderPlan(plan: Plan, pilot: Pilot, req: PlanRequest): string[] {
  const c = plan.components;
  const table = (rows: PlanRow[]) => [
    '    runs  workloads  reps  half-width   cost (USD)',
    ...rows.map(({ runs, design: d, floor }) =>
      d
        ? `    ${String(runs).padStart(4)}  ${String(d.workloads).padStart(9)}${d.workloads > c.workloads ? '*' : ' '} ${String(d.reps).padStart(4)}  ${`±${f1(d.half_width)}`.padStart(10)}   ${usd(d.costUsd).padStart(10)}`
        : `    ${String(runs).padStart(4)}  unreachable: the between-run variance alone leaves ±${f1(floor)}; add runs`,
    ),
  ];
  const degenerate = c.workload === 0 && c.residual === 0 && (c.run ?? 0) === 0;
  const lines = [
    `bench plan: Pass C − Pass B solved rate (points), from ${c.runs} pilot run${c.runs === 1 ? '' : 's'} (seeds ${pilot.runs.map((r) => r.seed).join(', ')}) of ${c.workloads} workloads × ${f1(c.reps)} reps`,
    `  variance components (pts²): workloads ${f1(c.workload)}, runs ${c.run === null ? 'not estimated (one run: taken as 0, so designs with 1 run are conditional on its learned state; pilot with --runs 3)' : f1(c.run)}, reps ${f1(c.residual)}; intra-cluster correlation ${c.icc === null ? '–' : c.icc.toFixed(2)}`,
    `  pilot difference ${c.mean >= 0 ? '+' : '−'}${f1(Math.abs(c.mean))} pts; one (workload, rep) over every pass costs ${usd(plan.unitCostUsd)} at prices ${pilot.pricingVersion}${pilot.simulated ? ' (simulated provider: what the emulated calls would cost)' : ''}`,
    `  model: Var = σ²_w/W + σ²_r/R + σ²_e/(W·K·R); half-width = t(W−1) · √Var (docs/results.md, "Planning")`,
    '',
    `Target: a 95% interval ${f1(req.widthPts)} pts wide (half-width ±${f1(plan.width.halfWidth)}):`,
    ...table(plan.width.rows),
    '',
    `Target: decide non-inferiority at ${f1(req.marginPts)} pts with ${Math.round(100 * req.power)}% power if the true difference is the pilot's ${c.mean >= 0 ? '+' : '−'}${f1(Math.abs(c.mean))} pts`,
    `  (an interval around the pilot difference decides once its half-width is under ${f1(plan.nonInferiority.halfWidth)} pts, the distance to the farther of −${f1(req.marginPts)} and 0: the verdict on that side, non-inferior above −${f1(req.marginPts)} or solved fewer below 0, is the one it can reach; the half-widths below include the power quantile):`,
    ...table(plan.nonInferiority.rows),
    '',
    '  * more workloads than the pilot suite has: the suite needs new workloads of the same kind.',
  ];
  if (c.reps <= 1) lines.splice(4, 0, '  one rep per workload: rep noise cannot be told from workload spread (all of it counted as workloads, so more reps look useless); pilot with --seed-passes 3');
  if (degenerate) lines.splice(1, 0, '  NOTE: the pilot shows no variation (every unit has the same difference): any design "reaches" any target; this plan means nothing. Pilot with more reps and runs.');
  return lines;
}
