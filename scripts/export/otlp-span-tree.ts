// Prints the span tree of one rep of an OTLP/JSON file written by `bench export --format otlp`.
// Usage: npx tsx scripts/export/otlp-span-tree.ts FILE [WORKLOAD] [REP]
import { readFileSync } from 'node:fs';
import { attributesOf, renderSpanTree, spansOf, type OtlpJsonRequest } from '../../harness/export/otlp/span-tree.ts';

const [file, workload, rep] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: npx tsx scripts/export/otlp-span-tree.ts FILE [WORKLOAD] [REP]\n');
  process.exit(2);
}
const spans = spansOf(JSON.parse(readFileSync(file, 'utf8')) as OtlpJsonRequest);
const reps = spans.filter((s) => attributesOf(s)['gen_ai.operation.name'] === 'invoke_agent');
const chosen = reps.find((s) => {
  const a = attributesOf(s);
  return (!workload || a['metis.workload'] === workload) && (!rep || a['metis.rep'] === Number(rep));
});
if (!chosen) {
  process.stderr.write(`${file}: no rep${workload ? ` of ${workload}` : ''}${rep ? ` rep ${rep}` : ''}\n`);
  process.exit(2);
}
process.stdout.write(`${renderSpanTree(spans, chosen.spanId).join('\n')}\n`);
