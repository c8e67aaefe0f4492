import { cpSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bench, REPO_ROOT, tempDir } from '../support/cli.ts';

// bin/ sets METIS_BENCH_CACHE_DIR to dist/ while dist/ runs; `bench list` then keeps what it read in an
// index there and answers from it while no file it could have read has changed.

const MARK = 'DESCRIPTION FROM THE INDEX';

/** A small workloads folder: two agent workloads, a stream with its own queries and one reading a data file, a matrix. */
function workloads(): string {
  const dir = tempDir('bench-list-index-');
  for (const w of ['fix-a-bug-small', 'regex-with-edge-cases', 'cache-adversarial', 'cache-gptcache', 'routellm-gsm8k'])
    cpSync(join(REPO_ROOT, 'workloads', w), join(dir, w), { recursive: true });
  return dir;
}

/** The one index file in `cache`, with the first agent workload's description replaced by MARK. */
function markIndex(cache: string): void {
  const folder = join(cache, 'list-index');
  const files = readdirSync(folder).filter((n) => n.endsWith('.json'));
  expect(files).toHaveLength(1);
  const file = join(folder, files[0]!);
  const index = JSON.parse(readFileSync(file, 'utf8')) as { rows: { agents: { description: string }[] } };
  index.rows.agents[0]!.description = MARK;
  writeFileSync(file, JSON.stringify(index));
}

async function list(dir: string, cache: string | undefined, extra: string[] = []): Promise<string> {
  const r = await bench(['list', '--workloads-dir', dir, '--wide', ...extra], { env: cache ? { METIS_BENCH_CACHE_DIR: cache } : {} });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

describe('bench list with an index folder', () => {
  it('prints byte for byte what it prints without one, when it makes the index and when it reads it', async () => {
    const dir = workloads();
    const cache = tempDir('bench-cache-');
    for (const extra of [[], ['--json'], ['--width', '80']]) {
      const plain = await list(dir, undefined, extra);
      expect(await list(dir, cache, extra)).toBe(plain);
      expect(await list(dir, cache, extra)).toBe(plain);
    }
    expect(readdirSync(join(cache, 'list-index')).filter((n) => n.endsWith('.json'))).toHaveLength(1);
  });

  it('answers from the index while nothing changed, and reads the workloads again after any change', async () => {
    const dir = workloads();
    const data = tempDir('bench-list-data-');
    // A stream whose data file lives outside the workloads folder: a change to it must be seen too.
    renameSync(join(dir, 'cache-gptcache', 'mock_data.json'), join(data, 'mock_data.json'));
    const stream = join(dir, 'cache-gptcache', 'stream.yaml');
    writeFileSync(stream, readFileSync(stream, 'utf8').replace('file: mock_data.json', `file: ${join('..', '..', data.split('/').at(-1)!, 'mock_data.json')}`));
    const cache = tempDir('bench-cache-');
    await list(dir, cache);
    markIndex(cache);
    expect(await list(dir, cache)).toContain(MARK);

    const changes: [string, () => void][] = [
      ['a description edited', () => {
        const f = join(dir, 'fix-a-bug-small', 'workload.yaml');
        writeFileSync(f, readFileSync(f, 'utf8').replace(/^description: .*$/m, 'description: An edited description.'));
      }],
      ['a workload added', () => cpSync(join(REPO_ROOT, 'workloads', 'write-a-doc-from-notes'), join(dir, 'write-a-doc-from-notes'), { recursive: true })],
      ['a sim script removed', () => rmSync(join(dir, 'regex-with-edge-cases', 'sim.yaml'))],
      ['a workload removed', () => rmSync(join(dir, 'regex-with-edge-cases'), { recursive: true })],
      ['the stream data outside the folder shortened', () => {
        const f = join(data, 'mock_data.json');
        writeFileSync(f, JSON.stringify((JSON.parse(readFileSync(f, 'utf8')) as unknown[]).slice(0, 10)));
      }],
      ['matrix outcomes cut to their first tasks', () => {
        const f = join(dir, 'routellm-gsm8k', 'outcomes.jsonl');
        writeFileSync(f, `${readFileSync(f, 'utf8').split('\n').slice(0, 40).join('\n')}\n`);
      }],
    ];
    for (const [what, change] of changes) {
      const before = await list(dir, undefined);
      change();
      const plain = await list(dir, undefined);
      expect(plain, what).not.toBe(before);
      const listed = await list(dir, cache);
      expect(listed, what).not.toContain(MARK);
      expect(listed, what).toBe(plain);
      markIndex(cache);
    }
  });

  it('reports a broken workload as it does without an index, and keeps no index of it', async () => {
    const dir = workloads();
    const cache = tempDir('bench-cache-');
    await list(dir, cache);
    const f = join(dir, 'fix-a-bug-small', 'workload.yaml');
    writeFileSync(f, `${readFileSync(f, 'utf8')}\nnot_a_key: 1\n`);
    const plain = await bench(['list', '--workloads-dir', dir]);
    const indexed = await bench(['list', '--workloads-dir', dir], { env: { METIS_BENCH_CACHE_DIR: cache } });
    expect(plain.code).toBe(2);
    expect(indexed).toEqual(plain);
    expect(indexed.stderr).toContain("unknown key 'not_a_key'");
  });
});
