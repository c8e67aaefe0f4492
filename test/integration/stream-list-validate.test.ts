import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bench, REPO_ROOT, tempDir } from '../support/cli.ts';

const STREAMS = ['cache-adversarial', 'cache-agent', 'cache-docflow', 'cache-gptcache', 'cache-multiturn'];

/** A workloads dir with one agent workload and the docflow stream, the stream rewritten by `mutate`. */
function workloadsWith(mutate: (yaml: string) => string): { root: string; file: string } {
  const root = join(tempDir(), 'workloads');
  mkdirSync(root);
  cpSync(join(REPO_ROOT, 'workloads', 'fix-a-bug-small'), join(root, 'fix-a-bug-small'), { recursive: true });
  mkdirSync(join(root, 'cache-docflow'));
  const file = join(root, 'cache-docflow', 'stream.yaml');
  writeFileSync(file, mutate(readFileSync(join(REPO_ROOT, 'workloads', 'cache-docflow', 'stream.yaml'), 'utf8')));
  return { root, file };
}

const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

describe('bench list shows the query streams', () => {
  it('one row per stream: name, set, queries asked, must-miss count, documents', async () => {
    const r = await bench(['list', '--width', '100']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^stream +set +queries +must-miss +documents$/m);
    expect(r.stdout).toMatch(/^cache-agent +agent +19 +19 +-$/m);
    expect(r.stdout).toMatch(/^cache-gptcache +paraphrase +999 \(\+999 warm\) +0 +-$/m);
    expect(r.stdout).toMatch(/^cache-docflow +document_workflow +29 +7 +8$/m);
    expect(Math.max(...r.stdout.split('\n').map((l) => [...l].length))).toBeLessThanOrEqual(100);
  });

  it('--json lists workloads (kind agent) and streams (kind query_stream)', async () => {
    const rows = JSON.parse((await bench(['list', '--json'])).stdout) as { kind: string; name: string; set?: string; queries?: number; must_miss?: number }[];
    expect(rows.filter((r) => r.kind === 'query_stream').map((r) => r.name)).toEqual(STREAMS);
    expect(rows.find((r) => r.name === 'cache-adversarial')).toMatchObject({ set: 'adversarial', queries: 191, must_miss: 70 });
    expect(rows.find((r) => r.name === 'fix-a-bug-small')).toMatchObject({ kind: 'agent' });
  });
});

describe('bench validate checks the query streams', () => {
  it('passes every shipped stream by default, and a stream.yaml named on the command line', async () => {
    const r = await bench(['validate']);
    expect(r.code, r.stderr).toBe(0);
    for (const s of STREAMS) expect(r.stdout).toMatch(new RegExp(`^ok +.*/${s} \\(query stream, \\d+ queries\\)$`, 'm'));
    const one = await bench(['validate', 'workloads/cache-docflow/stream.yaml']);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/cache-docflow \(query stream, 29 queries\)/);
  });

  it('an unknown key is exit 2 naming the file and line', async () => {
    const { root, file } = workloadsWith((y) => y.replace('    title: Onboarding guide\n', '    title: Onboarding guide\n    owner: people team\n'));
    const r = await bench(['validate', '--workloads-dir', root]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^ok +.*fix-a-bug-small$/m);
    expect(r.stderr).toContain(`${file}:${lineOf(readFileSync(file, 'utf8'), 'owner: people team')}:5: unknown key 'owner'`);
  });

  it('a document ref the stream does not define is exit 2 naming the file and line', async () => {
    const { root, file } = workloadsWith((y) => y.replace('documents: [incident-0519@1]\n    text: "What caused', 'documents: [incident-0519@2]\n    text: "What caused'));
    const r = await bench(['validate', '--workloads-dir', root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}:${lineOf(readFileSync(file, 'utf8'), 'incident-0519@2')}: query 'incident-0519-cause' refers to document 'incident-0519@2'`);
  });
});
