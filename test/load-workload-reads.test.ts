// In the integration project, a fresh module graph per file: node:fs is mocked here to count the loader's calls,
// which the unit project's shared graph (isolate: false) cannot do for a module another file loaded first.
import * as fs from 'node:fs';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from './support/temp.ts';
import { defaultInputLimits } from '../harness/input-limits.ts';
import { loadWorkload, workloadFinder } from '../harness/workloads/load-workload.ts';

// The loader's file calls, counted per path (the real calls still run).
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof fs>();
  return { ...real, existsSync: vi.fn(real.existsSync), readFileSync: vi.fn(real.readFileSync), statSync: vi.fn(real.statSync) };
});

const WORKLOADS = join(import.meta.dirname, '..', 'workloads');

/** How many times each of fs's stat and read calls named `file`. */
function callsOn(file: string): { stats: number; reads: number } {
  const on = (f: unknown) => (f as { mock: { calls: unknown[][] } }).mock.calls.filter((c) => c[0] === file).length;
  return { stats: on(fs.existsSync) + on(fs.statSync), reads: on(fs.readFileSync) };
}

/** A workloads folder holding a copy of the shipped fix-a-bug-small, whose workload.yaml `edit` may replace. */
function oneWorkload(edit?: (file: string) => void): { dir: string; file: string } {
  const dir = tempDir();
  cpSync(join(WORKLOADS, 'fix-a-bug-small'), join(dir, 'fix-a-bug-small'), { recursive: true });
  const file = join(dir, 'fix-a-bug-small', 'workload.yaml');
  edit?.(file);
  return { dir, file };
}

describe('workload loading', () => {
  afterEach(() => vi.clearAllMocks());

  it('stats and reads workload.yaml once for its kind, its encoding check and its parse (was four stats, three reads)', () => {
    vi.stubEnv('METIS_BENCH_CACHE_DIR', '');
    const { dir, file } = oneWorkload();
    vi.clearAllMocks();
    const found = workloadFinder(dir).find('fix-a-bug-small');
    expect(found?.spec.name).toBe('fix-a-bug-small');
    expect(callsOn(file)).toEqual({ stats: 1, reads: 1 });
    vi.clearAllMocks();
    expect(loadWorkload(join(dir, 'fix-a-bug-small')).spec).toEqual(found?.spec);
    expect(callsOn(file)).toEqual({ stats: 1, reads: 1 });
    vi.unstubAllEnvs();
  });

  it('found by name, refuses what it refused: bad bytes, an oversized file (never read), a wrong name; a matrix or missing file is no agent workload', () => {
    const notUtf8 = oneWorkload((f) => writeFileSync(f, Buffer.concat([fs.readFileSync(f), Buffer.from('# caf\xe9\n', 'latin1')])));
    expect(() => workloadFinder(notUtf8.dir).find('fix-a-bug-small')).toThrow(`${notUtf8.file}:`);
    expect(() => workloadFinder(notUtf8.dir).find('fix-a-bug-small')).toThrow(/not valid UTF-8 \(byte offset \d+, byte 0xe9\)/);

    const max = defaultInputLimits().limits.workload_file.max_bytes;
    const big = oneWorkload((f) => writeFileSync(f, `${fs.readFileSync(f, 'utf8')}# ${'x'.repeat(max)}\n`));
    vi.clearAllMocks();
    expect(() => workloadFinder(big.dir).find('fix-a-bug-small')).toThrow(/is over the workload_file limit/);
    expect(callsOn(big.file).reads).toBe(0);

    const renamed = oneWorkload((f) => writeFileSync(f, fs.readFileSync(f, 'utf8').replace('name: fix-a-bug-small', 'name: another-name')));
    expect(() => workloadFinder(renamed.dir).find('fix-a-bug-small')).toThrow(/name 'another-name' does not match its directory/);

    const matrix = tempDir();
    mkdirSync(join(matrix, 'gsm'));
    cpSync(join(WORKLOADS, 'routellm-gsm8k', 'workload.yaml'), join(matrix, 'gsm', 'workload.yaml'));
    mkdirSync(join(matrix, 'empty'));
    expect(workloadFinder(matrix).find('gsm')).toBeNull();
    expect(workloadFinder(matrix).find('empty')).toBeNull();
    expect(() => loadWorkload(join(matrix, 'gsm'))).toThrow(/kind: matrix holds recorded outcomes/);
    expect(() => loadWorkload(join(matrix, 'empty'))).toThrow(/no workload.yaml in/);
  });
});
