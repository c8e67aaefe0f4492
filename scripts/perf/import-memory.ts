// Memory of `bench import routellm` on a generated MMLU-shaped CSV (issue 29: a 1M-row CSV within 500 MB
// RSS). Each import runs in its own process, so its peak RSS is the import's: the large one and, as the
// floor from the same run, one of 1,000 rows (what the process costs before the data: modules, the
// tokenizer's ranks). Prints one JSON object.
// Usage: nice npx tsx scripts/perf/import-memory.ts [rows, default 1000000] [--child CSV OUT]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HEADER = 'prompt,mistralai/Mixtral-8x7B-Instruct-v0.1,gpt-4-1106-preview\n';
const WORDS = 'the of a model answer question which following is true about energy cell market law theory value function data system process change rate number'.split(' ');

/** Writes an MMLU-shaped CSV of `rows` distinct prompts (about 240 bytes a row). */
async function generate(file: string, rows: number): Promise<void> {
  const out = createWriteStream(file);
  let seed = 29;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
  out.write(HEADER);
  for (let i = 0; i < rows; i++) {
    const words = Array.from({ length: 30 }, () => WORDS[next() % WORDS.length]).join(' ');
    const line = `"Question ${i}: ${words}? A) one B) two C) three D) four",${next() % 2 ? 'True' : 'False'},${next() % 2 ? 'True' : 'False'}\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** One import in a child process: its wall time and peak RSS. */
function measure(csv: string, out: string): { seconds: number; max_rss_mb: number; tasks: number } {
  const text = execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', csv, out], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(text.trim().split('\n').at(-1)!) as { seconds: number; max_rss_mb: number; tasks: number };
}

async function child(csv: string, out: string): Promise<void> {
  const { importRoutellm } = await import('../../harness/matrix/import-routellm.ts');
  const started = Date.now();
  const r = await importRoutellm({ csvs: [csv], out });
  // resourceUsage().maxRSS is in KiB.
  console.log(JSON.stringify({ seconds: (Date.now() - started) / 1000, max_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024), tasks: r.summary.tasks }));
}

async function main(): Promise<void> {
  if (process.argv[2] === '--child') return child(process.argv[3]!, process.argv[4]!);
  const rows = Number(process.argv[2] ?? 1_000_000);
  const dir = mkdtempSync(join(tmpdir(), 'import-memory-'));
  try {
    writeFileSync(join(dir, 'LICENSE'), 'generated test data\n');
    await generate(join(dir, 'mmlu_floor.csv'), 1_000);
    await generate(join(dir, 'mmlu_large.csv'), rows);
    const floor = measure(join(dir, 'mmlu_floor.csv'), join(dir, 'floor'));
    const large = measure(join(dir, 'mmlu_large.csv'), join(dir, 'large'));
    console.log(JSON.stringify({ rows, large, floor_1000_rows: floor, target_max_rss_mb: 500, within_target: large.max_rss_mb <= 500, growth_over_floor_mb: large.max_rss_mb - floor.max_rss_mb }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
