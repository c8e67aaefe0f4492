// Input limits (harness/data/input-limits.json): an oversized workload file, cheat set, stream or import is
// refused from its size on disk, in well under a second, naming the file, the limit and its value.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { loadQueryStream } from './cache-bench/load-stream.ts';
import { defaultInputLimits, formatBytes, loadInputLimits, type InputKind } from './input-limits.ts';
import { importRoutellm } from './matrix/import-routellm.ts';
import { importSwebenchLeaderboard } from './matrix/import-swebench.ts';
import { loadMatrixWorkloadSpec } from './matrix/outcome-matrix.ts';
import { loadCheatSet } from './redteam/cheat-data.ts';
import { loadWorkload } from './workloads/load-workload.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'input-limits-'));
  dirs.push(d);
  return d;
}

/** A sparse file one byte over the limit of `kind`: no disk used, nothing worth reading. */
function oversized(path: string, kind: InputKind): string {
  writeFileSync(path, '');
  truncateSync(path, defaultInputLimits().limits[kind].max_bytes + 1);
  return path;
}

/** Runs `load`, expecting a refusal that names the file, the limit and its value, within a second. */
async function refusedFast(load: () => unknown, file: string, kind: InputKind): Promise<void> {
  const max = defaultInputLimits().limits[kind].max_bytes;
  const started = performance.now();
  let message = '';
  try {
    await load();
  } catch (e) {
    message = (e as Error).message;
  }
  expect(performance.now() - started).toBeLessThan(1000);
  expect(message).toContain(file);
  expect(message).toContain(`${kind} limit of ${formatBytes(max)} (${max} bytes)`);
  expect(message).toContain('harness/data/input-limits.json');
}

describe('input limits', () => {
  it('ships a valid limits file with a limit for every kind of input', () => {
    const l = loadInputLimits();
    for (const kind of ['workload_file', 'cheat_set', 'stream_file', 'stream_source', 'matrix_outcomes', 'import_csv', 'import_jsonl', 'import_json', 'import_licence'] as const)
      expect(l.limits[kind].max_bytes).toBeGreaterThan(0);
  });
  it('keeps the shipped limits in the parsed-file cache while dist/ runs, so a later start reads them back as they are', async () => {
    const cache = tmp();
    const before = process.env.METIS_BENCH_CACHE_DIR;
    process.env.METIS_BENCH_CACHE_DIR = cache;
    try {
      // A module of its own: the limits are loaded once per module, and another test may have loaded them.
      vi.resetModules();
      const fresh = (await import('./input-limits.ts')).defaultInputLimits();
      expect(fresh).toEqual(loadInputLimits());
      expect(readdirSync(join(cache, 'parsed')).filter((f) => f.startsWith('input-limits-'))).toHaveLength(1);
      vi.resetModules();
      expect((await import('./input-limits.ts')).defaultInputLimits()).toEqual(fresh);
    } finally {
      if (before === undefined) delete process.env.METIS_BENCH_CACHE_DIR;
      else process.env.METIS_BENCH_CACHE_DIR = before;
      vi.resetModules();
    }
  });

  it('refuses an invalid limits file, naming the file and field', () => {
    const p = join(tmp(), 'limits.json');
    writeFileSync(p, JSON.stringify({ version: 'x', limits: { workload_file: { max_bytes: -1 } } }));
    expect(() => loadInputLimits(p)).toThrow(new RegExp(`${p}: .*limits`));
  });
  it('refuses a 100 MB workload.yaml (agent or matrix) before parsing it', async () => {
    const dir = join(tmp(), 'huge');
    mkdirSync(dir);
    const file = oversized(join(dir, 'workload.yaml'), 'workload_file');
    truncateSync(file, 100 * 1024 * 1024);
    await refusedFast(() => loadWorkload(dir), file, 'workload_file');
    await refusedFast(() => loadMatrixWorkloadSpec(dir), file, 'workload_file');
  });
  it('refuses an oversized cheat set, stream file and stream source', async () => {
    const d = tmp();
    const cheats = oversized(join(d, 'cheats.yaml'), 'cheat_set');
    await refusedFast(() => loadCheatSet(cheats), cheats, 'cheat_set');
    const s = join(d, 'big-stream');
    mkdirSync(s);
    const stream = oversized(join(s, 'stream.yaml'), 'stream_file');
    await refusedFast(() => loadQueryStream(s), stream, 'stream_file');
    const s2 = join(d, 'cache-big-source');
    mkdirSync(s2);
    writeFileSync(join(s2, 'stream.yaml'), 'name: cache-big-source\nkind: query_stream\nset: paraphrase\ndescription: x\nsource:\n  format: gptcache_pairs\n  file: pairs.json\n');
    const source = oversized(join(s2, 'pairs.json'), 'stream_source');
    await refusedFast(() => loadQueryStream(s2), source, 'stream_source');
  });
  it('refuses an oversized import: a RouteLLM CSV (checked before any CSV is read), a leaderboards file, a problems file', async () => {
    const d = tmp();
    writeFileSync(join(d, 'LICENSE'), 'test\n');
    const small = join(d, 'mmlu_a.csv');
    writeFileSync(small, 'prompt,mistralai/Mixtral-8x7B-Instruct-v0.1,gpt-4-1106-preview\n"Q",True,False\n');
    const csv = oversized(join(d, 'mmlu_b.csv'), 'import_csv');
    await refusedFast(() => importRoutellm({ csvs: [small, csv], out: join(d, 'out') }), csv, 'import_csv');
    const lb = oversized(join(d, 'leaderboards.json'), 'import_json');
    const problems = join(d, 'problems.jsonl');
    writeFileSync(problems, '{"instance_id":"a__b-1","repo":"a/b","problem_statement":"x"}\n');
    await refusedFast(() => importSwebenchLeaderboard({ leaderboards: lb, problems, out: join(d, 'out2') }), lb, 'import_json');
    const bigProblems = oversized(join(d, 'big.jsonl'), 'import_jsonl');
    writeFileSync(join(d, 'lb.json'), '{"leaderboards":[]}');
    await refusedFast(() => importSwebenchLeaderboard({ leaderboards: join(d, 'lb.json'), problems: bigProblems, out: join(d, 'out3') }), bigProblems, 'import_jsonl');
  });
});
