import type { BenchReport, Estimate, Headline, ProtocolMetrics, Savings, Tightness, VsRandom, WorkloadResult } from '../../schemas/types/report.ts';
import { DEFAULT_MARGIN_PTS, signedPts, zeroWidth } from './verdict-grammar.ts';
import { checkCell, commitCell, estimateCell, num, passKCell, pct, qualityCell, rate, repLabel, shareablePath, shellWord, solvedCell, usd } from './format.ts';
import { legendLines } from './legend.ts';
import { oracleBlocks } from './oracle-section.ts';
import type { ReportBlock, ReportDocument, ReportSection } from './report-document.ts';

/** The glossary terms as one sentence for Markdown and HTML. */
function legendText(terms: readonly string[]): string {
  return legendLines(terms, null, '')[0]!;
}

const WORKLOAD_HEAD = ['workload', 'pass', 'reps', 'turns', 'llm', 'tool', 'actual $', 'baseline $', 'price effect $', 'price effect %', 'quality ± std', 'solved', 'check passes', 'pass@k / pass^k'];

/** The header of the per-workload table, exported so tests and readers can find the table. */
export const WORKLOAD_TABLE_HEAD: readonly string[] = WORKLOAD_HEAD;

const fixed1 = (x: number) => x.toFixed(1);
/** A difference in points to one decimal, `(no variation)` for a single-point interval. */
const ptsCell = (e: Estimate) => (e.estimate !== null && e.ci_low !== null && e.ci_high !== null && zeroWidth(e.ci_low, e.ci_high) ? `${signedPts(e.estimate, 1)} (no variation)` : estimateCell(e, (x) => signedPts(x, 1)));

/** Pass R in one line: the share it routed at (Pass C's) and the share its coins gave, or why it did not run. */
export function passRLine(r: NonNullable<ProtocolMetrics['pass_r']>): string {
  if (!r.run) return `Pass R (random router) not run: ${r.reason ?? 'no reason recorded'}.`;
  return `Pass R (random router, run): each turn strong with probability ${rate(r.strong_share_target)} (Pass C's strong-call share); its coins sent ${rate(r.strong_share_measured)} of its turns to the strong model.`;
}

/** The headline's figures as `[label, value]` rows: savings, solved rate of each arm, the difference, units, correlation. */
export function headlineRows(h: Headline): [string, string][] {
  const measured = h.kind === 'routed_vs_measured_strong';
  const routed = measured ? `routed (Pass ${h.routed_pass})` : h.routed_model;
  const strong = measured ? `${h.strong_model} (Pass ${h.strong_pass})` : `${h.strong_model} re-priced`;
  const rows: [string, string][] = [
    // The single protocol's figure is the price effect of re-pricing the same tokens; only a measured strong arm gives savings.
    [measured ? `savings of ${routed} vs ${strong}, % [95% CI]` : `price effect vs ${strong}, % [95% CI]`, estimateCell(h.savings_pct, fixed1)],
    [`solved rate, ${routed} [95% CI]`, estimateCell(h.solved_rate.routed, (x) => rate(x))],
  ];
  if (h.solved_rate.strong) rows.push([`solved rate, ${strong} [95% CI]`, estimateCell(h.solved_rate.strong, (x) => rate(x))]);
  if (h.solved_rate_diff_pts) rows.push([`solved-rate difference routed − strong, pts [95% CI] (margin ${h.margin_pts ?? DEFAULT_MARGIN_PTS} pts)`, ptsCell(h.solved_rate_diff_pts)]);
  if (h.strong_call_rate !== undefined && h.strong_call_rate !== null) rows.push([`strong-call rate, ${routed}`, rate(h.strong_call_rate)]);
  const r = h.vs_random;
  if (r) {
    const uses = (which: VsRandom['used']) => (r.used === which ? ', the verdict uses this' : '');
    rows.push([`vs random at its mix (A/B interpolation${uses('interpolated')}), pts [95% CI]`, ptsCell(r.interpolated)]);
    rows.push([`vs random at its mix (Pass R, run${uses('measured')}), pts [95% CI]`, r.measured ? ptsCell(r.measured) : 'not run']);
  }
  rows.push(
    ['paired units / workloads (clusters)', `${h.units} / ${h.clusters}${h.unmatched_units ? ` (${h.unmatched_units} unmatched reps left out)` : ''}`],
    ['correlation of the arms, solved / cost', `${num(h.correlation.solved)} / ${num(h.correlation.cost)}`],
  );
  return rows;
}

function headline(h: Headline): ReportSection {
  return {
    id: 'headline',
    title: h.kind === 'routed_vs_measured_strong' ? 'Headline: routed vs measured strong arm' : 'Headline: run vs re-priced baseline',
    blocks: [
      { kind: 'text', text: h.verdict },
      keyValues(['metric', 'value'], headlineRows(h)),
      ...(h.pass_d ? [{ kind: 'text' as const, text: `Pass D (delegation workloads only): ${h.pass_d.verdict}` }, keyValues(['metric (Pass D vs B)', 'value'], headlineRows(h.pass_d))] : []),
      { kind: 'text', text: h.method },
    ],
  };
}

function keyValues(head: [string, string], rows: [string, string][]): ReportBlock {
  return { kind: 'table', head, rows, numeric: [] };
}

function provenance(report: BenchReport): ReportSection {
  const p = report.provenance;
  const rows: [string, string][] = [
    ['run', p.run_id],
    ['status', `${report.status} (exit ${report.exit_code})`],
    ['commit', commitCell(p)],
    ['suite version', String(p.suite_version)],
    ['actual model', p.actual_model],
    ['baseline model', p.baseline_model],
  ];
  if (p.strong_model) rows.push(['strong model (Pass B)', p.strong_model]);
  rows.push(
    ['provider', `${p.actual_provider} (requested: ${p.requested_provider})`],
    ['pricing version', p.pricing_version],
    ['protocol', `${p.protocol}, seed passes ${p.seed_passes}, fingerprints ${p.fingerprint_version}${p.embedding_provider ? ` (${p.embedding_provider}, α ${p.embedding_alpha ?? 'default'})` : ''}`],
    ['seed / temperature', `${p.seed} / ${p.temperature.toFixed(1)}`],
    ['node', p.node_version],
    ['started / ended', `${p.started_at} / ${p.ended_at}`],
    ['trace DB', shareablePath(p.db_path)],
  );
  if (p.patterns_db_path) rows.push(['patterns DB', shareablePath(p.patterns_db_path)]);
  return { id: 'provenance', title: 'Provenance', blocks: [keyValues(['field', 'value'], rows)] };
}

/** One per-workload row as formatted text, in WORKLOAD_TABLE_HEAD's order: the same cells in every rendering. */
export function workloadRow(w: WorkloadResult): string[] {
  return [
    w.workload,
    w.pass,
    String(w.reps.length),
    String(w.turns),
    String(w.llm_calls),
    String(w.tool_calls),
    usd(w.savings.actual_repriced_usd),
    usd(w.savings.baseline_repriced_usd),
    usd(w.savings.savings_usd),
    pct(w.savings.savings_pct),
    qualityCell(w.quality_mean, w.quality_std, w.noisy),
    solvedCell(w),
    checkCell(w.reps),
    passKCell(w),
  ];
}

function workloads(report: BenchReport): ReportSection {
  const rows = report.workloads.map(workloadRow);
  const blocks: ReportBlock[] = [{ kind: 'table', head: WORKLOAD_HEAD, rows, numeric: [2, 3, 4, 5, 6, 7, 8, 9] }];
  if (rows.length === 0) blocks.push({ kind: 'text', text: 'No workload ran.' });
  else {
    const terms = ['llm', 'tool', 'actual', 'baseline', 'saved', 'quality', ...(report.workloads.some((w) => w.noisy) ? ['noisy'] : []), 'solved', 'check', 'passk', ...(report.protocol_metrics ? ['passes'] : [])];
    blocks.push({ kind: 'text', text: legendText(terms) });
  }
  return { id: 'workloads', title: 'Per workload', blocks };
}

function savingsRows(s: Savings): [string, string][] {
  return [
    ['actual (re-priced)', `$${usd(s.actual_repriced_usd)}`],
    [`baseline (${s.baseline_model})`, `$${usd(s.baseline_repriced_usd)}`],
    ['price effect (same tokens re-priced)', `$${usd(s.savings_usd)} (${pct(s.savings_pct)})`],
    ['LLM calls priced / missing from price table', `${s.rows_total - s.rows_missing_from_price_table} / ${s.rows_missing_from_price_table}`],
  ];
}

function aggregate(report: BenchReport): ReportSection {
  const a = report.aggregate;
  const wins = Object.entries(report.routing.decisions_by_policy)
    .filter(([, n]) => (n ?? 0) > 0)
    .map(([k, n]) => `${k}=${n}`)
    .join(', ');
  return {
    id: 'aggregate',
    title: report.protocol_metrics ? 'Aggregate (blended over every pass: not a routing result, see the headline)' : 'Aggregate',
    blocks: [
      keyValues(['metric', 'value'], [
        ...savingsRows(a.savings),
        ['quality mean', num(a.quality_mean)],
        ['solved runs', solvedCell({ solved: a.solved_runs, solved_rate: a.solved_rate, outcomes: a.outcomes })],
        ['price effect on solved work', `$${usd(a.savings_on_successful_work.savings_usd)} (${pct(a.savings_on_successful_work.savings_pct)})`],
        ['cache hit rate / write share', `${num(report.cache.hit_rate)} / ${num(report.cache.cache_write_share)}`],
        ['routing decisions', wins || 'none'],
        ['routing hard failures', String(report.routing.hard_failures)],
      ]),
    ],
  };
}

/** How many turns of the forced passes another slot decided, and which slots; `none` when every turn was forced. */
export function unforcedCell(m: ProtocolMetrics): string {
  if (m.unforced_turns.length === 0) return 'none (every turn forced)';
  const by = new Map<string, number>();
  for (const t of m.unforced_turns) by.set(`Pass ${t.pass} ${t.policy} → ${t.chosen_model}`, (by.get(`Pass ${t.pass} ${t.policy} → ${t.chosen_model}`) ?? 0) + 1);
  return [...by.entries()].map(([k, n]) => `${n} × ${k}`).join('; ');
}

function tightnessRow(version: string, t: Tightness): string[] {
  return [version, String(t.fingerprints), num(t.intra), num(t.inter), num(t.separation), `${t.pairs_intra} / ${t.pairs_inter}`];
}

function a3(m: ProtocolMetrics): ReportSection {
  const passes = m.passes.map((p) => [
    p.pass,
    p.model,
    p.description,
    String(p.workload_runs),
    usd(p.actual_cost_usd),
    pct(p.savings.savings_pct),
    qualityCell(p.quality_mean, p.quality_std, p.noisy),
    solvedCell(p),
    rate(p.slot4.fire_rate),
    rate(p.slot4.inversion_rate),
  ]);
  const s = m.slot4;
  const blocks: ReportBlock[] = [
    { kind: 'text', text: `Cheap model ${m.cheap_model}, strong model ${m.strong_model}.` },
    { kind: 'table', head: ['pass', 'model', 'what', 'runs', 'actual $', 'price effect (same tokens re-priced)', 'quality ± std', 'solved', 'slot-4 fire', 'slot-4 inversion'], rows: passes, numeric: [3, 4, 5, 8, 9] },
    { kind: 'text', text: legendText(['slot4']) },
    { kind: 'text', text: m.pass_d.run ? 'Pass D (delegation) ran.' : `Pass D not run: ${m.pass_d.reason ?? 'no reason recorded'}.` },
    ...(m.pass_r ? [{ kind: 'text' as const, text: passRLine(m.pass_r) }] : []),
    keyValues(['metric', 'value'], [
      ['savings vs measured strong arm (B → C)', pct(m.savings_vs_measured_strong_pct)],
      ['performance gap recovered on solved rate (C between A and B)', num(m.performance_gap_recovered)],
      ['strong-call rate in Pass C', rate(m.strong_call_rate)],
      ['turns of forced passes not on the forced model', unforcedCell(m)],
      ['slot 4 in Pass C', `${s.routed_turns} routed turns, fired ${s.fired} (${rate(s.fire_rate)}), inverted ${s.inverted} (${rate(s.inversion_rate)})`],
    ]),
  ];
  if (m.slot4_per_workload.length > 0) {
    const rows = m.slot4_per_workload.map((w) => [w.workload, String(w.slot4.routed_turns), String(w.slot4.fired), rate(w.slot4.fire_rate), String(w.slot4.inverted), rate(w.slot4.inversion_rate)]);
    blocks.push({ kind: 'table', head: ['workload (Pass C)', 'routed turns', 'fired', 'fire rate', 'inverted', 'inversion rate'], rows, numeric: [1, 2, 3, 4, 5] });
  }
  const tight: string[][] = [];
  if (m.cluster_tightness.v1) tight.push(tightnessRow('v1', m.cluster_tightness.v1));
  if (m.cluster_tightness.v2) tight.push(tightnessRow('v2', m.cluster_tightness.v2));
  blocks.push(
    tight.length > 0
      ? { kind: 'table', head: ['cluster tightness', 'fingerprints', 'intra', 'inter', 'separation', 'pairs intra / inter'], rows: tight, numeric: [1, 2, 3, 4] }
      : { kind: 'text', text: 'Cluster tightness: not computed (no patterns DB).' },
  );
  if (m.oracle) blocks.push(...oracleBlocks(m.oracle));
  return { id: 'a3', title: 'A3 protocol', blocks };
}

/**
 * What the assertions showed, in one sentence: "all N held", or "no assertion was evaluated" when none ran
 * (a run stopped before its first rep must not read as a run whose claims all held). Null when some failed.
 */
export function assertionsSummary(report: BenchReport): string | null {
  const reps = report.workloads.reduce((n, w) => n + w.reps.length, 0);
  const evaluated = report.workloads.reduce((n, w) => n + w.reps.reduce((m, r) => m + r.assertions.length, 0), 0);
  if (failedAssertions(report).length > 0) return null;
  if (evaluated === 0) return `No assertion was evaluated (${reps === 0 ? 'no rep ran' : `${reps} rep${reps === 1 ? '' : 's'} ran, none with an assertion`}).`;
  return `All ${evaluated} assertion${evaluated === 1 ? '' : 's'} held, over ${reps} rep${reps === 1 ? '' : 's'}.`;
}

function failedAssertions(report: BenchReport): string[] {
  return report.workloads.flatMap((w) =>
    w.reps.flatMap((r) => r.assertions.filter((a) => !a.passed).map((a) => `${repLabel(w.workload, w.pass, r.rep)}: ${a.scope} ${a.detail} (${a.name})`)),
  );
}

/** Lays a report out as titled sections: provenance, per workload, aggregate, A3, errors, assertions, warnings. */
export function buildReportDocument(report: BenchReport): ReportDocument {
  const sections: ReportSection[] = [...(report.headline ? [headline(report.headline)] : []), provenance(report), workloads(report), aggregate(report)];
  if (report.protocol_metrics) sections.push(a3(report.protocol_metrics));
  if (report.recording_path_errors.length > 0)
    sections.push({ id: 'recording-errors', title: `Recording-path errors (${report.recording_path_errors.length})`, blocks: [{ kind: 'list', items: report.recording_path_errors }] });
  const failed = failedAssertions(report);
  sections.push({
    id: 'assertions',
    title: failed.length === 0 ? 'Assertions' : `Failed assertions (${failed.length})`,
    blocks: [failed.length === 0 ? { kind: 'text', text: assertionsSummary(report)! } : { kind: 'list', items: failed }],
  });
  if (report.warnings.length > 0) sections.push({ id: 'warnings', title: 'Warnings', blocks: [{ kind: 'list', items: report.warnings }] });
  sections.push({
    id: 'recompute',
    title: 'Recompute',
    blocks: [
      { kind: 'text', text: 'Every number again from the trace DB alone, with no model calls:' },
      { kind: 'command', text: `npx analyze --skip-execute --db-path ${shellWord(shareablePath(report.provenance.db_path))}` },
    ],
  });
  return { title: `Metis benchmark report — ${report.provenance.run_id}`, banner: report.banner, sections };
}
