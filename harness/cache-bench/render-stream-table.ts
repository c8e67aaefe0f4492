// The per-tier table `bench run --workload <a cache stream>` prints.
import type { FitColumn } from '../report/fit-table.ts';
import { exactMoneyText, fixedText, intervalText } from '../report/number-text.ts';
import { renderSections } from '../report/text-sections.ts';
import type { Rate, StreamFigures } from './stream-metrics.ts';

function pctCi(r: Rate): string {
  if (r.n === 0) return 'n/a';
  const f = (x: number) => (x * 100).toFixed(x < 0.1 && x > 0 ? 2 : 1);
  return `${f(r.k / r.n)}% ${intervalText(f(r.ci.lo), f(r.ci.hi))}`;
}

/** A rate with its count and denominator first, so no reader has to guess what it divides by. */
function countPctCi(r: Rate): string {
  return r.n === 0 ? '0/0 (n/a)' : `${r.k}/${r.n} ${pctCi(r)}`;
}

/** What the two false-hit rates divide by, named. */
export function falseHitDenominators(f: StreamFigures): string {
  const m = f.must_miss;
  return `false-hit rates: "must-miss" = wrong hits over the ${m.queries} must-miss queries (the risk a user runs: ${m.declared} declared expect: miss, ${m.novel} first asks of a class, where any hit is wrong); "all" = wrong hits over all ${f.queries} queries${f.tier3 ? ' (the intermediate row: over steps, and over steps not computed before)' : ''}`;
}

function us(x: number | null): string {
  return x === null ? 'n/a' : x >= 1000 ? `${(x / 1000).toFixed(2)} ms` : `${x.toFixed(1)} µs`;
}

/** Tier 3 counts steps; its savings are against the uncached workflow, which may cost more than one call per query. */
function tier3Line(t: NonNullable<StreamFigures['tier3']>): string {
  return `tier 3: ${t.queries} document queries, ${t.steps} steps (${t.steps_served} served); their cost as one call each ${exactMoneyText(t.one_call_cost_usd)}, as the uncached workflow ${exactMoneyText(t.workflow_uncached_cost_usd)}, with Tier 3 ${exactMoneyText(t.workflow_cached_cost_usd)} (the intermediate row's % is of the uncached workflow)`;
}

/** The embedding total inside the cost line, when a paid embedder charged one. */
function embedPart(embedCostUsd: string | undefined): string {
  return embedCostUsd && Number(embedCostUsd) !== 0 ? ` (of which embedding ${exactMoneyText(embedCostUsd)}; net savings of semantic and all are after it)` : '';
}

export interface StreamTableHeader {
  name: string;
  set: string;
  embedder: string;
  delta: number;
  gate: boolean;
  cache: boolean;
  warm: number;
  /** Which labels scored it (GPTCache-sourced streams only). */
  labels?: 'gptcache' | 'audited';
  /** How the learned tuner was calibrated, when not from an empty ledger. */
  calibration?: string;
  /** Tier 2 embedded the emulated context summary before each query. */
  contextual?: boolean;
}

const col = (head: string, drop: number, extra: Partial<FitColumn> = {}): FitColumn => ({ head, drop, ...extra });
/** The per-tier columns; the higher `drop`, the sooner a column is hidden to fit the width. */
const TIER_COLUMNS: readonly FitColumn[] = [
  col('tier', 0, { wrap: true }),
  col('hits', 3),
  col('hit rate [95% CI]', 0),
  col('hit rate on repeats', 2),
  col('wrong', 0),
  col('false hits, must-miss [95% CI]', 0, { wrap: true }),
  col('false hits, all [95% CI]', 2),
  col('precision [95% CI]', 1),
  col('net savings', 0, { wrap: true }),
  col('lookup p50', 3),
  col('lookup p95', 3),
];

/**
 * One stream's figures as text (or Markdown): a header line, the per-tier table, latency and must-miss lines.
 * Text fits `width` (null: no limit): the table hides or folds columns as the agent report's do, prose wraps.
 */
export function renderStreamTable(h: StreamTableHeader, f: StreamFigures, format: 'text' | 'markdown' = 'text', width: number | null = null): string {
  const lines = [
    `${h.name} (${h.set}): ${f.queries} queries (${f.repeats} repeats of an answered class${h.warm ? `, after ${h.warm} warm-up writes` : ''}); cache ${h.cache ? 'on' : 'off'}, embedder ${h.embedder}, delta ${h.delta >= 1 ? 'off (fixed prior threshold)' : h.delta}, gate ${h.gate ? 'on' : 'off'}`,
    'sim: answers are the stream\'s reference answers priced as the stream model (simulated provider, no model called)',
  ];
  if (h.labels === 'gptcache') lines.push("labels: GPTCache's own (each pair its own answer; the primary figures)");
  if (h.labels === 'audited') lines.push('labels: audited (pairs stating the same facts merged, equivalent-pairs.yaml; secondary figures)');
  if (h.calibration) lines.push(`calibration: ${h.calibration}`);
  if (h.contextual) lines.push('contextual embedding: each query embedded behind an [emulated] context summary (built from the detected task and intent words; no model wrote it)');
  const head = TIER_COLUMNS.map((c) => c.head);
  const rows = f.tiers.map((r) => [
    // Tier 3's row counts workflow steps, not queries: its rates are over steps.
    r.tier === 'intermediate' ? 'intermediate (steps)' : r.tier,
    String(r.hits),
    pctCi(r.hit_rate),
    pctCi(r.hit_rate_on_repeats),
    String(r.wrong_hits),
    countPctCi(r.false_hit_rate_must_miss),
    countPctCi(r.false_hit_rate),
    pctCi(r.precision),
    `${exactMoneyText(r.net_savings_usd)}${r.net_savings_pct === null ? '' : ` (${fixedText(r.net_savings_pct, 1)}%)`}`,
    us(r.lookup_us_p50),
    us(r.lookup_us_p95),
  ]);
  const after: string[] = [falseHitDenominators(f)];
  after.push(
    // A local embedder costs nothing, and its line stays as it always read.
    `cost: cache off ${exactMoneyText(f.cost_off_usd)}, cache on ${exactMoneyText(f.cost_on_usd)}${embedPart(f.embed_cost_usd)}; net savings charge each wrong hit ${f.wrong_hit_penalty}x its query's cost; ${f.explored} would-be hits recomputed to learn`,
    `latency: tier 1 = exact-key lookup; tier 2 = vector search, embedding excluded (embedding p50 ${us(f.embed_us_p50)}, p95 ${us(f.embed_us_p95)}); all = whole lookup; all-tiers-miss overhead p50 ${us(f.all_miss_overhead_us_p50)}, p95 ${us(f.all_miss_overhead_us_p95)}`,
    f.must_miss_classes_hit.length ? `must-miss classes served (each a wrong hit): ${f.must_miss_classes_hit.join(', ')}` : 'must-miss classes served: none',
  );
  if (f.tier3) after.push(tier3Line(f.tier3));
  if (format === 'markdown') {
    const cell = (c: string) => c.replace(/\\/g, '\\\\').replace(/\|/g, '\\|');
    return [...lines, '', `| ${head.map(cell).join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`), '', ...after].join('\n');
  }
  return renderSections([{ lines }, { columns: TIER_COLUMNS, rows }, { lines: after }], width);
}
