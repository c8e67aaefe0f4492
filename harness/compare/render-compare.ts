import type { CompareArtifact, CompareRow } from '../../schemas/types/compare.ts';
import { num, pct, rate, usd } from '../report/format.ts';
import { fitLines } from '../report/fit-lines.ts';
import { fitTable, type FitColumn } from '../report/fit-table.ts';
import { wrapWords } from '../report/legend.ts';
import { DEFAULT_MARGIN_PTS, signedPts, zeroWidth } from '../report/verdict-grammar.ts';
import { buildClaims, solvedRowFor } from './compare-reports.ts';

/** A value of `unit` through the shared report formatters, so compare reads like `bench report`. */
export function cell(unit: CompareRow['unit'], v: string | number | null): string {
  if (v === null) return 'n/a';
  // One minus sign everywhere: the points columns print −, so money and scores do too.
  return unitCell(unit, v).replace(/^-/, '\u2212');
}

function unitCell(unit: CompareRow['unit'], v: string | number): string {
  switch (unit) {
    case 'pct':
      return pct(String(v));
    case 'usd':
      return usd(String(v));
    case 'rate':
      return rate(Number(v));
    case 'score':
      return num(Number(v));
  }
}

/** A difference B − A: in points ("pts") when both sides are percents or rates, else signed in the unit. */
export function signed(unit: CompareRow['unit'], v: string | number | null): string {
  if (v === null) return 'n/a';
  if (unit === 'pct') return `${signedPts(Number(v), 1)} pts`;
  if (unit === 'rate') return `${signedPts(100 * Number(v), 1)} pts`;
  const s = cell(unit, v);
  return Number(v) > 0 ? `+${s}` : s;
}

/** The paired interval of B − A; `no variation` when it is a single point (both sides constant on every unit). */
export function ciCell(r: CompareRow): string {
  if (!r.ci) return 'n/a';
  if (zeroWidth(r.ci.low, r.ci.high)) return 'no variation';
  const f = (x: number) => signed(r.unit, x).replace(/ pts$/, '');
  return `[${f(r.ci.low)}, ${f(r.ci.high)}]${r.unit === 'pct' || r.unit === 'rate' ? ' pts' : ''}`;
}

/** The artifact's claims; an artifact written before they were recorded gets its solved-rate claim from the rows. */
function claimsOf(artifact: CompareArtifact): NonNullable<CompareArtifact['claims']> {
  return artifact.claims ?? buildClaims([], solvedRowFor(artifact.rows, artifact.routing?.pass ?? null), DEFAULT_MARGIN_PTS, artifact.routing?.identical ?? false);
}

/** B against A on solved rate, in the verdict grammar: non-inferiority at the margin, or why it cannot say. */
export function compareSolvedVerdict(artifact: CompareArtifact): string | null {
  return claimsOf(artifact).find((c) => c.figure === 'solved_rate_diff_pts')?.text ?? null;
}

/** Units and workloads behind an interval, and the arms' correlation on them (what pairing buys). */
function unitsCell(r: CompareRow): string {
  if (!r.ci) return r.ci_reason?.includes('no paired interval') || r.ci_reason?.includes('no per-unit samples') ? 'whole report' : '';
  const runs = r.ci.two_level ? ` / ${r.ci.two_level.runs} runs` : '';
  return `${r.ci.units} / ${r.ci.clusters}${runs}${r.ci.correlation === null ? '' : `  r=${r.ci.correlation.toFixed(2)}`}`;
}

/** The verdict line of the fingerprint tightness test (v2 must tighten clusters and separate them more than v1). */
export function verdictLine(artifact: CompareArtifact): string {
  const v = artifact.tightness_verdict;
  const figures = v.v1 && v.v2 ? ` v1 intra ${num(v.v1.intra)} inter ${num(v.v1.inter)}; v2 intra ${num(v.v2.intra)} inter ${num(v.v2.inter)};` : '';
  return `tightness test (v2 intra >= v1 + ${v.required_intra_gain}, inter <= v1 − ${v.required_inter_drop}): ${v.verdict.toUpperCase()} —${figures} ${v.reason}`;
}

/** `bench compare` stdout: banner, the two arms, one table (metric | A | B | delta | 95% CI), the test-5 verdict. */
export function renderCompareTable(artifact: CompareArtifact, paths: { json: string | null; width?: number | null }): string {
  const width = paths.width === undefined ? null : paths.width;
  const out: string[] = [];
  if (artifact.banner) out.push(`*** ${artifact.banner} ***`, '');
  const armLine = (name: string, a: CompareArtifact['a']) =>
    `${name}: ${a.label}  ${a.report_path ?? a.run_id}  (protocol ${a.protocol}, fingerprint ${a.fingerprint_version}, provider ${a.actual_provider}, seed ${a.seed}, seed_passes ${a.seed_passes})`;
  const wrap = (text: string) => (width === null ? [text] : wrapWords(text, width));
  out.push('=== Metis bench compare ===', ...wrap(armLine('A', artifact.a)), ...wrap(armLine('B', artifact.b)));
  const level = Math.round(artifact.statistics.confidence * 100);
  out.push(...wrap(`intervals of B - A: ${artifact.statistics.method}`));
  const runs = artifact.runs ?? null;
  if (runs)
    out.push(
      ...wrap(
        `runs: ${runs.paired} paired by seed (seeds ${runs.seeds.join(', ')}); each figure is the mean of the ${runs.paired} per-seed differences and its interval includes the between-run variance (the learning trajectories) as well as the within-run variance clustered by workload.`,
      ),
    );
  if (paths.json) out.push(`json: ${paths.json}`);
  const shared = artifact.shared_units;
  if (shared) {
    const apart = [shared.only_a ? `${shared.only_a} only in A` : null, shared.only_b ? `${shared.only_b} only in B` : null].filter(Boolean);
    const text =
      shared.shared === 0
        ? `units: the reports share no (pass, workload, rep) unit (${apart.join(', ')}), so no paired row has figures; each report's own are in bench report.`
        : `units: A, B, delta and interval of each paired row are taken over the ${shared.shared} (pass, workload, rep) units both reports hold${apart.length ? `; left out of them: ${apart.join(', ')}` : ' (every unit of both)'}.`;
    out.push(...wrap(text));
  }
  out.push('');
  const side = (name: string, label: string) => (label === name ? name : `${name} (${label})`);
  const columns: FitColumn[] = [
    { head: 'metric', drop: 0, wrap: true },
    { head: side('A', artifact.a.label), drop: 0 },
    { head: side('B', artifact.b.label), drop: 0 },
    { head: 'delta (B − A)', drop: 0 },
    { head: `${level}% CI (paired${runs ? ', across runs' : ''})`, drop: 0 },
    { head: 'units / workloads', drop: 1 },
  ];
  const routing = artifact.routing ?? null;
  if (routing) out.push(...wrap(routing.message), '');
  if (routing?.identical && artifact.rows.every((r) => r.delta === null || Number(r.delta) === 0)) {
    // A table of zeros reads as "the arms are equal"; the JSON still holds every row.
    out.push(`(no metric differs between A and B; its ${artifact.rows.length} rows are in the JSON artifact)`);
  } else {
    const rows = artifact.rows.map((r) => [`${r.metric} (${r.scope})`, cell(r.unit, r.a), cell(r.unit, r.b), signed(r.unit, r.delta), ciCell(r), unitsCell(r)]);
    const t = fitTable(columns, rows, width);
    out.push(t.text);
    if (t.hidden.length) out.push(`  (hidden to fit ${width} columns: ${t.hidden.join(', ')}; --wide shows every column)`);
    // A row that states no difference says why under the table (pass@k at different k).
    const apart = [...new Set(artifact.rows.filter((r) => r.delta === null && r.a !== null && r.b !== null && r.ci_reason).map((r) => `${r.metric} (${r.scope}): ${r.ci_reason}`))];
    out.push(...apart.flatMap((x) => wrap(x)));
  }
  // What the intervals allow, in the verdict grammar: savings first, then solved rate against the margin.
  const claims = claimsOf(artifact);
  if (claims.length) out.push('', ...claims.flatMap((c) => wrap(c.text)));
  out.push('', verdictLine(artifact));
  return fitLines(out.join('\n'), width);
}
