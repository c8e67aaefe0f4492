import Table from 'cli-table3';
import { Decimal } from 'decimal.js';
import type { BenchReport, Savings } from '../../schemas/types/report.ts';

const usd = (s: string) => new Decimal(s).toFixed(4);
const pct = (s: string | null) => (s === null ? 'n/a' : `${new Decimal(s).toFixed(1)}%`);
const num = (x: number | null, digits = 3) => (x === null ? 'n/a' : x.toFixed(digits));

function plainTable(head: string[]): Table.Table {
  // No colours and ASCII-safe borders so the output pastes cleanly into decks and CI logs.
  return new Table({ head, style: { head: [], border: [], compact: true }, chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' } });
}

function savingsLines(label: string, s: Savings): string[] {
  return [
    `${label}:`,
    `  rows_total:                       ${s.rows_total}`,
    `  rows_missing_from_price_table:    ${s.rows_missing_from_price_table}`,
    `  actual_repriced_usd:              ${usd(s.actual_repriced_usd)}`,
    `  baseline_repriced_usd:            ${usd(s.baseline_repriced_usd)}`,
    `  savings_usd:                      ${usd(s.savings_usd)}`,
    `  savings_pct:                      ${pct(s.savings_pct)}`,
  ];
}

/** The stdout report of benchmark.md §8, rendered with cli-table3. */
export function renderReportTable(report: BenchReport, paths: { json: string | null }): string {
  const p = report.provenance;
  const out: string[] = [];
  if (report.banner) out.push(`*** ${report.banner} ***`, '');
  out.push(
    '=== Metis benchmark suite ===',
    `commit:           ${p.metis_commit_sha ? p.metis_commit_sha.slice(0, 7) : 'unknown'} (${p.metis_dirty === null ? 'unknown' : p.metis_dirty ? 'dirty' : 'clean'})${p.metis_branch ? ` on ${p.metis_branch}` : ''}`,
    `suite_version:    ${p.suite_version}`,
    `actual_model:     ${p.actual_model}`,
    `baseline_model:   ${p.baseline_model}`,
    `provider:         ${p.actual_provider} (requested: ${p.requested_provider})`,
    `pricing_version:  ${p.pricing_version}`,
    `temperature:      ${p.temperature.toFixed(1)}`,
    `seed:             ${p.seed}   seed_passes: ${p.seed_passes}   protocol: ${p.protocol}`,
    `node:             ${p.node_version}`,
    `started / ended:  ${p.started_at} / ${p.ended_at}`,
    `db:               ${p.db_path}`,
  );
  if (paths.json) out.push(`json:             ${paths.json}`);
  out.push(`status:           ${report.status}`, '', 'Per-workload:');

  const t = plainTable(['workload', 'pass', 'reps', 'turns', 'llm', 'tool', 'actual_$', 'baseline_$', 'saved_$', 'saved_%', 'quality', 'check']);
  for (const w of report.workloads) {
    const checks = w.reps.filter((r) => r.check !== null);
    const checkCell = checks.length === 0 ? '-' : `${checks.filter((r) => r.check!.passed).length}/${checks.length}`;
    const quality = w.quality_mean === null ? 'n/a' : `${num(w.quality_mean)}±${num(w.quality_std)}${w.noisy ? ' NOISY' : ''}`;
    t.push([w.workload, w.pass, w.reps.length, w.turns, w.llm_calls, w.tool_calls, usd(w.savings.actual_repriced_usd), usd(w.savings.baseline_repriced_usd), usd(w.savings.savings_usd), pct(w.savings.savings_pct), quality, checkCell]);
  }
  out.push(t.toString(), '');
  out.push(...savingsLines('Aggregate', report.aggregate.savings));
  out.push(`  quality_mean:                     ${num(report.aggregate.quality_mean)}`);
  out.push(`  successful runs (score >= 0.5):   ${report.aggregate.successful_runs}/${report.aggregate.workload_runs}`);
  out.push(`  savings_on_successful_work:       ${usd(report.aggregate.savings_on_successful_work.savings_usd)} (${pct(report.aggregate.savings_on_successful_work.savings_pct)})`);
  out.push(`  cache hit_rate:                   ${num(report.cache.hit_rate)}   write share: ${num(report.cache.cache_write_share)}`);
  const wins = Object.entries(report.routing.decisions_by_policy).filter(([, n]) => (n ?? 0) > 0).map(([k, n]) => `${k}=${n}`).join(' ');
  out.push(`  routing decisions:                ${wins || 'none'}   hard failures: ${report.routing.hard_failures}`);

  const failed = report.workloads.flatMap((w) => w.reps.flatMap((r) => r.assertions.filter((a) => !a.passed).map((a) => `  ${w.workload} [${w.pass} rep ${r.rep}] ${a.scope} ${a.name}: ${a.detail}`)));
  out.push('', failed.length === 0 ? 'Assertions: all held.' : `Assertions failed (${failed.length}):`, ...failed);
  for (const w of report.warnings) out.push(`warning: ${w}`);
  out.push('', 'Recompute every number from the trace DB alone:', `  npx analyze --skip-execute --db-path ${p.db_path}`);
  if (report.banner) out.push('', `*** ${report.banner} ***`);
  return out.join('\n');
}
