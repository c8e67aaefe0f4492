// Prints the sim figures docs/results.md quotes, from the reports its commands wrote:
//   npx tsx scripts/results-doc.ts --a3 /tmp/a3.seed-0.json --runs /tmp/a3.runs.json --signal /tmp/sig.signal.json --compare /tmp/v1v2.json
// Paste the output over the doc's tables; test/integration/results-doc.test.ts (METIS_SLOW_TESTS=1) checks them.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { BenchReport } from '../schemas/types/report.ts';
import type { CompareArtifact } from '../schemas/types/compare.ts';
import type { MultiRun } from '../schemas/types/multi-run.ts';
import type { SignalResult } from '../harness/signal/signal-verdict.ts';
import { a3HeadlineQuote, a3PassRows, compareRows, multiRunBlock, signalRows } from './results-doc/figures.ts';

const { values } = parseArgs({ options: { a3: { type: 'string' }, runs: { type: 'string' }, signal: { type: 'string' }, compare: { type: 'string' } } });
if (!values.a3 && !values.runs && !values.signal && !values.compare) {
  process.stderr.write('usage: npx tsx scripts/results-doc.ts [--a3 REPORT.json] [--runs BASE.runs.json] [--signal SIGNAL.json] [--compare COMPARE.json]\n');
  process.exit(2);
}
const out: string[] = [];
if (values.a3) {
  const report = JSON.parse(readFileSync(values.a3, 'utf8')) as BenchReport;
  out.push(...a3PassRows(report), '', a3HeadlineQuote(report), '');
}
if (values.runs) {
  const summary = JSON.parse(readFileSync(values.runs, 'utf8')) as MultiRun;
  out.push(...multiRunBlock(summary), '');
}
if (values.signal) {
  const body = JSON.parse(readFileSync(values.signal, 'utf8')) as { results?: SignalResult[] } & SignalResult;
  out.push(...signalRows(body.results ?? [body]), '');
}
if (values.compare) {
  const artifact = JSON.parse(readFileSync(values.compare, 'utf8')) as CompareArtifact;
  out.push(...compareRows(artifact), '');
}
process.stdout.write(`${out.join('\n')}\n`);
