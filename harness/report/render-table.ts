import type { BenchReport, Headline, OracleMetrics, ProtocolMetrics, Savings } from '../../schemas/types/report.ts';
import { commitCell, num, pct, qualityCell, rate, repLabel, solvedCell, usd } from './format.ts';
import { fitLines } from './fit-lines.ts';
import { DEFAULT_WIDTH, fitTable, type FitColumn } from './fit-table.ts';
import { legendLines, wrapWords } from './legend.ts';
import { assertionsSummary, headlineRows, passRLine, unforcedCell, workloadRow } from './report-sections.ts';
import { ORACLE_ARM_HEAD, ORACLE_ROUTER_HEAD, oracleArmRows, oracleNote, oracleRouterRows } from './oracle-section.ts';


function savingsLines(label: string, s: Savings): string[] {
  return [
    `${label}:`,
    `  rows_total:                       ${s.rows_total}`,
    `  rows_missing_from_price_table:    ${s.rows_missing_from_price_table}`,
    `  actual_repriced_usd:              ${usd(s.actual_repriced_usd)}`,
    `  baseline_repriced_usd:            ${usd(s.baseline_repriced_usd)}`,
    `  price effect $ (same tokens re-priced): ${usd(s.savings_usd)}`,
    `  price effect % (same tokens re-priced): ${pct(s.savings_pct)}`,
  ];
}

/** How the stdout report is laid out: where the JSON went, and the width its tables must fit (null: no limit, `--wide`). */
export interface TableRenderOptions {
  json: string | null;
  width?: number | null;
}

/** Renders a fitted table, and says which columns it left out and how to see them. */
function fitted(columns: readonly FitColumn[], rows: string[][], width: number | null, legend: (visible: (head: string) => boolean) => string[] = () => []): string[] {
  const t = fitTable(columns, rows, width);
  const terms = legend((head) => !t.hidden.includes(head));
  return [t.text, ...(t.hidden.length ? [`  (hidden to fit ${width} columns: ${t.hidden.join(', ')}; --wide shows every column)`] : []), ...(terms.length ? legendLines(terms, width) : [])];
}

/** The glossary terms a column head needs explained. */
const COLUMN_TERMS: Readonly<Record<string, string[]>> = {
  llm: ['llm'],
  tool: ['tool'],
  'actual $': ['actual'],
  'baseline $': ['baseline'],
  'price effect %': ['saved'],
  quality: ['quality'],
  solved: ['solved'],
  check: ['check'],
  'pass@k / ^k': ['passk'],
  'slot-4 inversion': ['slot4'],
};

function termsFor(columns: readonly FitColumn[], visible: (head: string) => boolean, extra: string[] = []): string[] {
  return [...columns.filter((c) => visible(c.head)).flatMap((c) => COLUMN_TERMS[c.head] ?? []), ...extra];
}

const WORKLOAD_COLUMNS: FitColumn[] = [
  { head: 'workload', drop: 0, wrap: true },
  { head: 'pass', drop: 0 },
  { head: 'reps', drop: 3, numeric: true },
  { head: 'turns', drop: 4, numeric: true },
  { head: 'llm', drop: 4, numeric: true },
  { head: 'tool', drop: 4, numeric: true },
  { head: 'actual $', drop: 0, numeric: true },
  { head: 'baseline $', drop: 2, numeric: true },
  { head: 'price effect $', drop: 3, numeric: true },
  { head: 'price effect %', drop: 0, numeric: true },
  { head: 'quality', drop: 1, numeric: true },
  { head: 'solved', drop: 0 },
  { head: 'check', drop: 2 },
  { head: 'pass@k / ^k', drop: 2 },
];

const PASS_COLUMNS: FitColumn[] = [
  { head: 'pass', drop: 0 },
  { head: 'model', drop: 2, wrap: true },
  { head: 'runs', drop: 3, numeric: true },
  { head: 'actual $', drop: 0, numeric: true },
  { head: 'price effect (same tokens re-priced)', drop: 1, numeric: true },
  { head: 'quality', drop: 2, numeric: true },
  { head: 'solved', drop: 0 },
  { head: 'slot-4 fire', drop: 1, numeric: true },
  { head: 'slot-4 inversion', drop: 0, numeric: true },
];

/** The stdout report of benchmark.md §8: the answer first (headline), then the tables, fitted to `width`. */
export function renderReportTable(report: BenchReport, options: TableRenderOptions): string {
  const width = options.width === undefined ? DEFAULT_WIDTH : options.width;
  const p = report.provenance;
  const out: string[] = [];
  if (report.banner) out.push(`*** ${report.banner} ***`, '');
  if (report.headline) out.push(...renderHeadline(report.headline, width), '');
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
  if (options.json) out.push(`json:             ${options.json}`);
  out.push(`status:           ${report.status}${stoppedNote(report)}`, '', 'Per-workload:');

  const rows = report.workloads.map(workloadRow);
  const extra = [...(report.workloads.some((w) => w.noisy) ? ['noisy'] : []), ...(report.protocol_metrics ? ['passes'] : [])];
  out.push(...fitted(WORKLOAD_COLUMNS, rows, width, (visible) => termsFor(WORKLOAD_COLUMNS, visible, extra)), '');
  out.push(...savingsLines(report.protocol_metrics ? 'Aggregate (blended over every pass: not a routing result, see the headline)' : 'Aggregate', report.aggregate.savings));
  out.push(`  quality_mean:                     ${num(report.aggregate.quality_mean)}`);
  const a = report.aggregate;
  out.push(`  solved runs:                      ${solvedCell({ solved: a.solved_runs, solved_rate: a.solved_rate, outcomes: a.outcomes })}`);
  out.push(`  price effect on solved work:      ${usd(report.aggregate.savings_on_successful_work.savings_usd)} (${pct(report.aggregate.savings_on_successful_work.savings_pct)})`);
  out.push(`  cache hit_rate:                   ${num(report.cache.hit_rate)}   write share: ${num(report.cache.cache_write_share)}`);
  const sc = report.cache.semantic;
  if (sc) {
    out.push(
      `  semantic cache:                   ${sc.served_calls} of ${sc.llm_calls} model calls served (exact ${sc.hits_exact}, semantic ${sc.hits_semantic}, intermediate ${sc.hits_intermediate})`,
      `                                    misses ${sc.misses} (explored ${sc.explored})   sets ${sc.sets}   evictions ${sc.evictions}   avoided ${usd(sc.avoided_cost_usd)}   served at ${usd(sc.served_cost_usd)}`,
    );
  }
  const wins = Object.entries(report.routing.decisions_by_policy).filter(([, n]) => (n ?? 0) > 0).map(([k, n]) => `${k}=${n}`).join(' ');
  out.push(`  routing decisions:                ${wins || 'none'}   hard failures: ${report.routing.hard_failures}`);

  if (report.protocol_metrics) out.push('', ...renderA3(report.protocol_metrics, width));
  if (report.recording_path_errors.length) out.push('', `Recording-path errors (${report.recording_path_errors.length}):`, ...report.recording_path_errors.map((e) => `  ${e}`));

  // Reps the model or the provider ended early: the class first, so a reader can tell a malformed answer from a budget stop.
  const errored = report.workloads.flatMap((w) => w.reps.filter((r) => r.error !== null).map((r) => `  ${repLabel(w.workload, w.pass, r.rep)}: ${r.error_class ?? 'error'}: ${r.error!.slice(0, 300)}`));
  if (errored.length) out.push('', `Reps that ended in an error (${errored.length}):`, ...errored);

  const failed = report.workloads.flatMap((w) => w.reps.flatMap((r) => r.assertions.filter((x) => !x.passed).map((x) => `  ${repLabel(w.workload, w.pass, r.rep)}: ${x.scope} ${x.detail} (${x.name})`)));
  out.push('', failed.length === 0 ? `Assertions: ${assertionsSummary(report)!.replace(/^./, (c) => c.toLowerCase())}` : `Assertions failed (${failed.length}):`, ...failed);
  for (const w of report.warnings) out.push(`warning: ${w}`);
  out.push('', 'Recompute every number from the trace DB alone:', `  npx analyze --skip-execute --db-path ${p.db_path}`);
  // The verdict again at the end, where a terminal leaves the reader.
  if (report.headline) out.push('', `Headline: ${report.headline.verdict}`);
  if (report.banner) out.push('', `*** ${report.banner} ***`);
  // Every line, not only the tables: rows, notes, warnings and the banner wrap to the width too.
  return fitLines(out.join('\n'), width);
}

/** The A3 section: one row per pass, then the routing and cluster figures of spec §8.3. */
function renderA3(m: ProtocolMetrics, width: number | null): string[] {
  const out = [`A3 protocol (cheap: ${m.cheap_model}, strong: ${m.strong_model}):`];
  const rows = m.passes.map((p) => [p.pass, p.model, String(p.workload_runs), usd(p.actual_cost_usd), pct(p.savings.savings_pct), qualityCell(p.quality_mean, p.quality_std, p.noisy), solvedCell(p), rate(p.slot4.fire_rate), rate(p.slot4.inversion_rate)]);
  if (!m.pass_d.run) rows.push(['D', '-', '0', '-', '-', '-', '-', '-', '-']);
  out.push(...fitted(PASS_COLUMNS, rows, width, (visible) => termsFor(PASS_COLUMNS, visible).filter((t) => t === 'slot4')));
  if (!m.pass_d.run) out.push(`  Pass D not run: ${m.pass_d.reason}`);
  if (m.pass_r) out.push(`  ${passRLine(m.pass_r)}`);
  out.push(
    `  savings vs measured strong arm (B -> C):  ${pct(m.savings_vs_measured_strong_pct)} (the only savings figure; see the headline)`,
    `  performance gap recovered (solved rate):  ${num(m.performance_gap_recovered)}`,
    `  strong-call rate in Pass C:               ${rate(m.strong_call_rate)}`,
    `  forced passes, turns not forced:          ${unforcedCell(m)}`,
    `  slot 4 in Pass C: ${m.slot4.routed_turns} routed turns, fired ${m.slot4.fired} (${rate(m.slot4.fire_rate)}), inverted ${m.slot4.inverted} (${rate(m.slot4.inversion_rate)})`,
  );
  if (m.slot4_per_workload.length) {
    const perWorkload: FitColumn[] = [{ head: 'workload (Pass C)', drop: 0, wrap: true }, { head: 'slot-4 fire', drop: 0, numeric: true }, { head: 'slot-4 inversion', drop: 0, numeric: true }];
    out.push(...fitted(perWorkload, m.slot4_per_workload.map((w) => [w.workload, rate(w.slot4.fire_rate), rate(w.slot4.inversion_rate)]), width));
  }
  const { v1, v2 } = m.cluster_tightness;
  if (!v1 && !v2) out.push('  cluster tightness: no patterns DB');
  for (const [version, t] of [['v1', v1], ['v2', v2]] as const)
    if (t) out.push(`  cluster tightness (${version}, ${t.fingerprints} fingerprints): intra ${num(t.intra)}  inter ${num(t.inter)}  separation ${num(t.separation)}`);
  if (m.oracle) out.push(...oracleLines(m.oracle, width));
  return out;
}

/** The oracle rows of the A3 section: each arm's point, then each routed pass against the oracles and random. */
function oracleLines(o: OracleMetrics, width: number | null): string[] {
  const col = (head: string, i: number, drop = 0): FitColumn => ({ head, drop, numeric: i > 0, wrap: i === 0 });
  // The hull gap and the hindsight capture/regret never hide; the model-based one goes first.
  const routerDrops = [0, 2, 0, 0, 2, 1, 1];
  return [
    ...(width === null ? [`  oracle and baselines: ${oracleNote(o)}`] : wrapWords(`oracle and baselines: ${oracleNote(o)}`, width - 2).map((l) => `  ${l}`)),
    ...fitted(ORACLE_ARM_HEAD.map((h, i) => col(h, i)), oracleArmRows(o), width),
    ...fitted(ORACLE_ROUTER_HEAD.map((h, i) => col(h, i, routerDrops[i] ?? 1)), oracleRouterRows(o), width),
  ];
}

/** The headline block, first on stdout: the sentence, wrapped to the width, then its figures. */
function renderHeadline(h: Headline, width: number | null): string[] {
  const rows = headlineRows(h);
  const labelWidth = Math.max(...rows.map(([k]) => k.length));
  const wrap = (text: string) => (width === null ? [text] : wrapWords(text, width));
  const d = h.pass_d ? wrap(`Pass D (delegation workloads only): ${h.pass_d.verdict}`) : [];
  return ['=== Headline ===', ...wrap(h.verdict), ...rows.map(([k, v]) => `  ${k.padEnd(labelWidth)}  ${v}`), ...d, ...(width === null ? [`(${h.method})`] : wrapWords(`(${h.method})`, width - 2)).map((l) => `  ${l}`)];
}

/** Why an incomplete run stopped (`--max-cost`: which bound, the spend so far; Ctrl-C), from the rep it stopped in. */
function stoppedNote(report: BenchReport): string {
  if (report.status !== 'incomplete') return '';
  for (const w of report.workloads)
    for (const r of w.reps)
      if (r.error_class === 'budget_stopped' || r.error_class === 'interrupted' || r.error?.startsWith('stopped:'))
        return ` (stopped early in ${repLabel(w.workload, w.pass, r.rep)}: ${r.error!.replace(/^stopped: /, '')}; later reps did not run, so this report is incomplete)`;
  return ' (stopped early; later reps did not run, so this report is incomplete)';
}
