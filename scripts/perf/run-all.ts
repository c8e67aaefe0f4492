// Runs the perf scripts in this folder, one after another (so they never share the CPU), and prints one
// JSON object: { "<script>": <its JSON output> }. Each script's progress goes to stderr as it runs.
//
//   npm run perf                      every benchmark (the 1M-row vector runs alone take most of an hour)
//   npm run perf -- knn-scale startup only these (names without .ts)
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Files here that are not benchmarks: they print nothing of their own when run bare. */
const NOT_BENCHMARKS: Record<string, string> = {
  'run-all': 'this runner',
  'bandwidth-floor': 'the floor pass knn-scale and knn-phases import',
  'matrix-report-diff': 'compares two matrix reports named on its command line',
  'measured-env': 'the environment startup and nightly-growth give the processes they time',
  'cold-runs': 'what the fresh-process trace read scripts share',
};

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
  .map((f) => f.replace(/\.ts$/, ''))
  .filter((name) => !(name in NOT_BENCHMARKS))
  .sort();
const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  process.stderr.write(`perf: no benchmark named ${unknown.join(', ')}; the benchmarks are: ${available.join(', ')}\n`);
  process.exit(2);
}
const results: Record<string, unknown> = {};
for (const name of asked.length > 0 ? asked : available) {
  process.stderr.write(`perf: ${name} ...\n`);
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(here, `${name}.ts`)], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Each script prints one JSON object, possibly over several lines, as the last thing on stdout.
  const start = out.lastIndexOf('\n{') + 1;
  results[name] = JSON.parse(out.slice(start));
}
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
