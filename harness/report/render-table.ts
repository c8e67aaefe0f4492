import Table from 'cli-table3';
import type { BenchReport, Headline, OracleMetrics, ProtocolMetrics, Savings } from '../../schemas/types/report.ts';
import { checkCell, commitCell, num, passKCell, pct, qualityCell, rate, solvedCell, usd } from './format.ts';
import { headlineRows, unforcedCell } from './report-sections.ts';
import { ORACLE_ARM_HEAD, ORACLE_ROUTER_HEAD, oracleArmRows, oracleNote, oracleRouterRows } from './oracle-section.ts';

/** The table style of every stdout rendering (run, report, compare). */
export function plainTable(head: string[]): Table.Table {
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
    `commit:           ${commitCell(p)}`,
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
  out.push(`status:           ${report.status}${stoppedNote(report)}`, '', 'Per-workload:');

  const t = plainTable(['workload', 'pass', 'reps', 'turns', 'llm', 'tool', 'actual_$', 'baseline_$', 'saved_$', 'saved_%', 'quality', 'solved', 'check', 'pass@k / ^k']);
  for (const w of report.workloads) {
    const quality = qualityCell(w.quality_mean, w.quality_std, w.noisy);
    t.push([w.workload, w.pass, w.reps.length, w.turns, w.llm_calls, w.tool_calls, usd(w.savings.actual_repriced_usd), usd(w.savings.baseline_repriced_usd), usd(w.savings.savings_usd), pct(w.savings.savings_pct), quality, solvedCell(w), checkCell(w.reps), passKCell(w)]);
  }
  out.push(t.toString(), '');
  out.push(...savingsLines(report.protocol_metrics ? 'Aggregate (blended over every pass: not a routing result, see the headline)' : 'Aggregate', report.aggregate.savings));
  out.push(`  quality_mean:                     ${num(report.aggregate.quality_mean)}`);
  const a = report.aggregate;
  out.push(`  solved runs:                      ${solvedCell({ solved: a.solved_runs, solved_rate: a.solved_rate, outcomes: a.outcomes })}`);
  out.push(`  savings_on_solved_work:           ${usd(report.aggregate.savings_on_successful_work.savings_usd)} (${pct(report.aggregate.savings_on_successful_work.savings_pct)})`);
  out.push(`  cache hit_rate:                   ${num(report.cache.hit_rate)}   write share: ${num(report.cache.cache_write_share)}`);
  const wins = Object.entries(report.routing.decisions_by_policy).filter(([, n]) => (n ?? 0) > 0).map(([k, n]) => `${k}=${n}`).join(' ');
  out.push(`  routing decisions:                ${wins || 'none'}   hard failures: ${report.routing.hard_failures}`);

  if (report.protocol_metrics) out.push('', ...renderA3(report.protocol_metrics));
  if (report.headline) out.push('', ...renderHeadline(report.headline));
  if (report.recording_path_errors.length) out.push('', `Recording-path errors (${report.recording_path_errors.length}):`, ...report.recording_path_errors.map((e) => `  ${e}`));

  // Reps the model or the provider ended early: the class first, so a reader can tell a malformed answer from a budget stop.
  const errored = report.workloads.flatMap((w) => w.reps.filter((r) => r.error !== null).map((r) => `  ${w.workload} [${w.pass} rep ${r.rep}] ${r.error_class ?? 'error'}: ${r.error!.slice(0, 300)}`));
  if (errored.length) out.push('', `Reps that ended in an error (${errored.length}):`, ...errored);

  const failed = report.workloads.flatMap((w) => w.reps.flatMap((r) => r.assertions.filter((a) => !a.passed).map((a) => `  ${w.workload} [${w.pass} rep ${r.rep}] ${a.scope} ${a.name}: ${a.detail}`)));
  out.push('', failed.length === 0 ? 'Assertions: all held.' : `Assertions failed (${failed.length}):`, ...failed);
  for (const w of report.warnings) out.push(`warning: ${w}`);
  out.push('', 'Recompute every number from the trace DB alone:', `  npx analyze --skip-execute --db-path ${p.db_path}`);
  if (report.banner) out.push('', `*** ${report.banner} ***`);
  return out.join('\n');
}

/** The A3 section: one row per pass, then the routing and cluster figures of spec §8.3. */
function renderA3(m: ProtocolMetrics): string[] {
  const out = [`A3 protocol (cheap: ${m.cheap_model}, strong: ${m.strong_model}):`];
  const t = plainTable(['pass', 'model', 'runs', 'actual_$', 'saved_% vs baseline', 'quality', 'solved', 'slot-4 fire', 'slot-4 inversion']);
  for (const p of m.passes)
    t.push([p.pass, p.model, p.workload_runs, usd(p.actual_cost_usd), pct(p.savings.savings_pct), qualityCell(p.quality_mean, p.quality_std, p.noisy), solvedCell(p), rate(p.slot4.fire_rate), rate(p.slot4.inversion_rate)]);
  if (!m.pass_d.run) t.push(['D', '-', 0, '-', '-', '-', '-', '-', '-']);
  out.push(t.toString());
  if (!m.pass_d.run) out.push(`  Pass D not run: ${m.pass_d.reason}`);
  out.push(
    `  savings vs measured strong arm (B -> C):  ${pct(m.savings_vs_measured_strong_pct)}`,
    `  performance gap recovered (solved rate):  ${num(m.performance_gap_recovered)}`,
    `  strong-call rate in Pass C:               ${rate(m.strong_call_rate)}`,
    `  forced passes, turns not forced:          ${unforcedCell(m)}`,
    `  slot 4 in Pass C: ${m.slot4.routed_turns} routed turns, fired ${m.slot4.fired} (${rate(m.slot4.fire_rate)}), inverted ${m.slot4.inverted} (${rate(m.slot4.inversion_rate)})`,
  );
  for (const w of m.slot4_per_workload) out.push(`    ${w.workload.padEnd(48)} fire ${rate(w.slot4.fire_rate).padStart(6)}  inversion ${rate(w.slot4.inversion_rate).padStart(6)}`);
  const { v1, v2 } = m.cluster_tightness;
  if (!v1 && !v2) out.push('  cluster tightness: no patterns DB');
  for (const [version, t] of [['v1', v1], ['v2', v2]] as const)
    if (t) out.push(`  cluster tightness (${version}, ${t.fingerprints} fingerprints): intra ${num(t.intra)}  inter ${num(t.inter)}  separation ${num(t.separation)}`);
  if (m.oracle) out.push(...oracleLines(m.oracle));
  return out;
}

/** The oracle rows of the A3 section: each arm's point, then each routed pass against the oracles and random. */
function oracleLines(o: OracleMetrics): string[] {
  const arms = plainTable(ORACLE_ARM_HEAD);
  for (const r of oracleArmRows(o)) arms.push(r);
  const routers = plainTable(ORACLE_ROUTER_HEAD);
  for (const r of oracleRouterRows(o)) routers.push(r);
  return [`  oracle and baselines: ${oracleNote(o)}`, arms.toString(), routers.toString()];
}

/** The headline block, last on stdout so it is what a terminal shows: the sentence, then its figures. */
function renderHeadline(h: Headline): string[] {
  const rows = headlineRows(h);
  const width = Math.max(...rows.map(([k]) => k.length));
  const d = h.pass_d ? [`Pass D (delegation workloads only): ${h.pass_d.verdict}`] : [];
  return ['=== Headline ===', h.verdict, ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`), ...d, `  (${h.method})`];
}

/** Why an incomplete run stopped (`--max-cost`: which bound, the spend so far; Ctrl-C), from the rep it stopped in. */
function stoppedNote(report: BenchReport): string {
  if (report.status !== 'incomplete') return '';
  for (const w of report.workloads)
    for (const r of w.reps)
      if (r.error_class === 'budget_stopped' || r.error_class === 'interrupted' || r.error?.startsWith('stopped:'))
        return ` (stopped early in ${w.workload} ${w.pass} rep ${r.rep}: ${r.error!.replace(/^stopped: /, '')}; later reps did not run, so this report is incomplete)`;
  return ' (stopped early; later reps did not run, so this report is incomplete)';
}
