// `bench compare cache-off cache-on --workload cache-*`: each stream twice, once with the cache off and
// once on, paired by query: per-query saving (cost off − cost on − penalty × wrong hit × query cost), its
// mean with a t interval, and the totals.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Decimal } from 'decimal.js';
import { createEmbeddingProvider } from '../../runtime/patterns/embeddings/create-embedding-provider.ts';
import { loadPriceTable } from '../../runtime/pricing/index.ts';
import type { CliIO } from '../io/cli-io.ts';
import { EXIT, SetupError } from '../errors.ts';
import { studentTQuantile } from '../metrics/student-t.ts';
import type { FitColumn } from '../report/fit-table.ts';
import { exactMoneyText, fixedText, intervalText, signedMoneyText } from '../report/number-text.ts';
import { renderSections } from '../report/text-sections.ts';
import { loadQueryStream } from './load-stream.ts';
import { DEFAULT_CACHE_EMBEDDER, selectsQueryStreams } from './stream-options.ts';
import { runStream } from './run-stream.ts';

export interface CacheCompareRow {
  stream: string;
  queries: number;
  cost_off_usd: string;
  cost_on_usd: string;
  hits: number;
  wrong_hits: number;
  /** Mean per-query net saving, USD, and its 95% t interval. */
  mean_saving_usd: number;
  ci95: [number, number] | null;
  saved_pct: number | null;
}

/** Pairs the two arms query by query; throws when they did not run the same queries. */
export function pairArms(
  off: readonly { id: string; spentUsd: string }[],
  on: readonly { id: string; spentUsd: string; costUsd: string; servedBy: string | null; correct: boolean | null; steps?: readonly { served: boolean; correct: boolean | null }[] }[],
  penalty: number,
): { savings: number[]; hits: number; wrong: number } {
  if (off.length !== on.length || off.some((r, i) => r.id !== on[i]!.id)) throw new Error('cache compare: the two arms did not replay the same queries in the same order');
  let hits = 0;
  let wrong = 0;
  const savings = off.map((r, i) => {
    const x = on[i]!;
    if (x.servedBy !== null) hits++;
    // A wrong Tier 3 step spoils the answer built on it, even when other steps were computed.
    const isWrong = (x.servedBy !== null && !x.correct) || (x.steps?.some((s) => s.served && !s.correct) ?? false);
    if (isWrong) wrong++;
    return new Decimal(r.spentUsd).minus(x.spentUsd).minus(isWrong ? new Decimal(x.costUsd).times(penalty) : 0).toNumber();
  });
  return { savings, hits, wrong };
}

function meanCi(xs: readonly number[]): { mean: number; ci: [number, number] | null } {
  const n = xs.length;
  const mean = xs.reduce((s, x) => s + x, 0) / Math.max(1, n);
  if (n < 2) return { mean, ci: null };
  const sd = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1));
  const half = studentTQuantile(0.975, n - 1) * (sd / Math.sqrt(n));
  return { mean, ci: [mean - half, mean + half] };
}

export interface CacheCompareOptions {
  workloadsDir: string;
  names: string[];
  embedder: string | null;
  penalty: number;
  json: string | null;
  /** The width stdout fits (null or absent: no limit). */
  width?: number | null;
}

/** The compare table's columns; the higher `drop`, the sooner a column is hidden to fit the width. */
const COMPARE_COLUMNS: readonly FitColumn[] = [
  { head: 'stream', drop: 0, wrap: true },
  { head: 'queries', drop: 2, numeric: true },
  { head: 'cache off $', drop: 1, numeric: true },
  { head: 'cache on $', drop: 1, numeric: true },
  { head: 'hits', drop: 2, numeric: true },
  { head: 'wrong', drop: 0, numeric: true },
  { head: 'net saved %', drop: 0, numeric: true },
  { head: 'mean saving/query [95% CI]', drop: 0, wrap: true },
];

/** A row of the compare table: money written out (never `1.44e-5`), one minus sign, the interval kept whole. */
export function compareCells(r: CacheCompareRow): string[] {
  const m = (x: number) => signedMoneyText(x, 3);
  return [
    r.stream,
    String(r.queries),
    exactMoneyText(r.cost_off_usd),
    exactMoneyText(r.cost_on_usd),
    String(r.hits),
    String(r.wrong_hits),
    r.saved_pct === null ? 'n/a' : `${fixedText(r.saved_pct, 1)}%`,
    `${m(r.mean_saving_usd)}${r.ci95 ? ` ${intervalText(m(r.ci95[0]), m(r.ci95[1]))}` : ''}`,
  ];
}

export async function compareCacheArms(o: CacheCompareOptions, io: CliIO): Promise<number> {
  if (!o.names.length || !selectsQueryStreams(o.workloadsDir, o.names)) throw new SetupError('compare cache-off cache-on: name one or more query streams with --workload (workloads/cache-*)');
  const prices = loadPriceTable();
  const rows: CacheCompareRow[] = [];
  for (const name of o.names) {
    const stream = loadQueryStream(join(o.workloadsDir, name));
    const embedder = createEmbeddingProvider(o.embedder ?? DEFAULT_CACHE_EMBEDDER, { env: io.env });
    try {
      const signal = io.interrupt;
      const off = await runStream(stream, { cache: false, embedder, prices, ...(signal ? { signal } : {}) });
      const on = off.interrupted ? off : await runStream(stream, { cache: true, embedder, prices, ...(signal ? { signal } : {}) });
      if (on.interrupted) {
        io.err(`interrupted during ${name}: the arms were not both replayed, so nothing is compared or written`);
        return EXIT.assertionFailed;
      }
      const { savings, hits, wrong } = pairArms(off.records, on.records, o.penalty);
      const costOff = off.records.reduce((s, r) => s.plus(r.spentUsd), new Decimal(0));
      const costOn = on.records.reduce((s, r) => s.plus(r.spentUsd), new Decimal(0));
      const { mean, ci } = meanCi(savings);
      const net = savings.reduce((s, x) => s + x, 0);
      rows.push({ stream: name, queries: savings.length, cost_off_usd: costOff.toFixed(), cost_on_usd: costOn.toFixed(), hits, wrong_hits: wrong, mean_saving_usd: mean, ci95: ci, saved_pct: costOff.isZero() ? null : (net / costOff.toNumber()) * 100 });
    } finally {
      await embedder.close();
    }
  }
  const title = `cache off vs cache on, paired by query (embedder ${o.embedder ?? DEFAULT_CACHE_EMBEDDER}; a wrong hit costs ${o.penalty}x its query, in net saved %; sim: reference answers, no model called)`;
  io.out(renderSections([{ title, columns: COMPARE_COLUMNS, rows: rows.map(compareCells) }], o.width ?? null));
  const out = resolve(io.cwd, o.json ?? join('reports', '.runs', `cache-compare-${new Date().toISOString().replace(/[:.]/g, '-')}.json`));
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify({ kind: 'cache_compare', provider: 'sim', rows }, null, 2)}\n`);
  io.out(`JSON: ${out}`);
  return 0;
}
