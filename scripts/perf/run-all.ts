// Runs every perf script in this folder, one after another (so they never share the CPU), and prints
// one JSON object: { "<script>": <its JSON output> }. Usage: npm run perf
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const scripts = readdirSync(here).filter((f) => f.endsWith('.ts') && f !== 'run-all.ts').sort();
const results: Record<string, unknown> = {};
for (const file of scripts) {
  process.stderr.write(`perf: ${file} ...\n`);
  const out = execFileSync(process.execPath, ['--import', 'tsx', join(here, file)], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  // Each script prints one JSON object as its last line.
  results[file.replace(/\.ts$/, '')] = JSON.parse(out.trim().split('\n').at(-1)!);
}
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
