// Prints the sim figures docs/results.md quotes, from the reports its commands wrote:
//   npx tsx scripts/results-doc.ts --a3 /tmp/a3.json --signal /tmp/sig.signal.json
// Paste the output over the doc's tables; test/integration/results-doc.test.ts (METIS_SLOW_TESTS=1) checks them.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { BenchReport } from '../schemas/types/report.ts';
import type { SignalResult } from '../harness/signal/signal-verdict.ts';
import { a3HeadlineQuote, a3PassRows, signalRows } from './results-doc/figures.ts';

const { values } = parseArgs({ options: { a3: { type: 'string' }, signal: { type: 'string' } } });
if (!values.a3 && !values.signal) {
  process.stderr.write('usage: npx tsx scripts/results-doc.ts [--a3 REPORT.json] [--signal SIGNAL.json]\n');
  process.exit(2);
}
const out: string[] = [];
if (values.a3) {
  const report = JSON.parse(readFileSync(values.a3, 'utf8')) as BenchReport;
  out.push(...a3PassRows(report), '', a3HeadlineQuote(report), '');
}
if (values.signal) {
  const body = JSON.parse(readFileSync(values.signal, 'utf8')) as { results?: SignalResult[] } & SignalResult;
  out.push(...signalRows(body.results ?? [body]), '');
}
process.stdout.write(`${out.join('\n')}\n`);
