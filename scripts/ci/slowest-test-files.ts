// Prints the slowest test files from a vitest JSON report (`--reporter=json --outputFile=F`), so CI
// shows where the suite's time goes. Usage: tsx scripts/ci/slowest-test-files.ts F [N=15]
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

interface FileResult {
  name: string;
  startTime: number;
  endTime: number;
  status: string;
}

const [file, countArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: tsx scripts/ci/slowest-test-files.ts VITEST_JSON [N]\n');
  process.exit(2);
}
const count = Number(countArg ?? 15);
const report = JSON.parse(readFileSync(file, 'utf8')) as { testResults: FileResult[] };
const rows = report.testResults
  .map((r) => ({ file: relative(process.cwd(), r.name), seconds: (r.endTime - r.startTime) / 1000, status: r.status }))
  .sort((a, b) => b.seconds - a.seconds)
  .slice(0, count);
process.stdout.write(`slowest ${rows.length} test files (wall seconds):\n`);
for (const r of rows) process.stdout.write(`${r.seconds.toFixed(1).padStart(8)}  ${r.file}${r.status === 'passed' ? '' : `  (${r.status})`}\n`);
