// The sim figures docs/results.md quotes, as the exact Markdown it prints them in: one function per table, so
// scripts/results-doc.ts can print them for the doc and test/integration/results-doc.test.ts can check the
// doc still holds them at HEAD (issue 23 item 8).
import type { BenchReport } from '../../schemas/types/report.ts';
import type { CompareArtifact } from '../../schemas/types/compare.ts';
import type { MultiRun } from '../../schemas/types/multi-run.ts';
import { cell, ciCell, signed, verdictLine } from '../../harness/compare/render-compare.ts';
import { renderMultiRunHeadline } from '../../harness/report/multi-run-headline.ts';
import type { SignalResult } from '../../harness/signal/signal-verdict.ts';
import { rate, solvedCell, usd } from '../../harness/report/format.ts';
import { signedPts } from '../../harness/report/verdict-grammar.ts';

/** The A3 pass table: runs, spend, solved and, for the routed passes only, slot 4's fire and inversion rates. */
export function a3PassRows(report: BenchReport): string[] {
  const m = report.protocol_metrics;
  if (!m) return [];
  return [
    '| pass | model | runs | actual $ | solved | slot-4 fire | slot-4 inversion |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
    ...m.passes.map((p) => {
      // In a forced pass slot 4 only ever defers to the forced model: its "fire rate" there says nothing about routing.
      // Pass R's chain has no slot 4 (its coin names every model).
      const forced = p.pass === 'A' || p.pass === 'B' || p.pass === 'R';
      return `| ${p.pass} | ${p.model} | ${p.workload_runs} | ${usd(p.actual_cost_usd)} | ${solvedCell(p)} | ${forced ? '—' : rate(p.slot4.fire_rate)} | ${forced ? '—' : rate(p.slot4.inversion_rate)} |`;
    }),
  ];
}

/** The headline as the doc quotes it: the verdict sentence, verbatim. */
export function a3HeadlineQuote(report: BenchReport): string {
  return `> ${report.headline?.verdict ?? 'no headline'}`;
}

const f3 = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));

/** The `bench signal --all` table: each arm's mean gated score and solved reps, the gaps (solved gap in pts), the verdict. */
export function signalRows(results: readonly SignalResult[]): string[] {
  return [
    '| workload | haiku mean | haiku solved | sonnet mean | sonnet solved | score gap | solved gap | verdict |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...results.map(
      (r) =>
        `| ${r.workload} | ${f3(r.cheap.mean)} | ${r.cheap.solved}/${r.cheap.scores.length} | ${f3(r.strong.mean)} | ${r.strong.solved}/${r.strong.scores.length} | ${f3(r.score_gap)} | ${r.solved_gap === null ? 'n/a' : `${signedPts(100 * r.solved_gap)} pts`} | ${r.verdict} |`,
    ),
  ];
}

/** The combined headline of `bench run --runs N` as stdout prints it, without the per-run file paths (they name temp folders). */
export function multiRunBlock(m: MultiRun): string[] {
  const lines = renderMultiRunHeadline(m);
  const from = lines.findIndex((l) => l.startsWith('Headline across runs:'));
  return from < 0 ? lines.slice(-1) : lines.slice(from).map((l) => `    ${l}`);
}

/** The rows of `bench compare v1 v2` the doc shows (aggregate and the routed passes), then the routing line, the claims and the test-5 verdict. */
export function compareRows(a: CompareArtifact): string[] {
  const shown = a.rows.filter((r) => r.ci !== null || r.metric.startsWith('cluster_') || r.metric === 'performance_gap_recovered');
  const keep = shown.filter((r) => r.scope === 'aggregate' || r.scope === 'pass C' || r.scope === 'pass C-oos' || r.scope === 'v1' || r.scope === 'v2');
  return [
    `| metric | ${a.a.label} | ${a.b.label} | delta (B − A) | 95% CI (paired) |`,
    '| --- | ---: | ---: | ---: | ---: |',
    ...keep.map((r) => `| ${r.metric} (${r.scope}) | ${cell(r.unit, r.a)} | ${cell(r.unit, r.b)} | ${signed(r.unit, r.delta)} | ${ciCell(r)} |`),
    '',
    ...(a.routing ? [`> ${a.routing.message}`, '>'] : []),
    ...(a.claims ?? []).flatMap((c) => [`> ${c.text}`, '>']),
    `> ${verdictLine(a)}`,
  ];
}
