import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHashingProvider } from '../../runtime/patterns/embeddings/hashing-provider.ts';
import { loadPriceTable } from '../../runtime/pricing/index.ts';
import type { CliIO } from '../io/cli-io.ts';
import { compareCacheArms } from './compare-cache.ts';
import { loadQueryStream } from './load-stream.ts';
import { runStream, type StreamRun } from './run-stream.ts';
import { runStreamCommand } from '../cli/commands/run/run-stream-command.ts';
import { streamFigures } from './stream-metrics.ts';

const WORKLOADS = join(import.meta.dirname, '..', '..', 'workloads');
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'docflow-'));
  dirs.push(d);
  return d;
}
function streamDir(name: string, yaml: string): string {
  const root = tmp();
  mkdirSync(join(root, name));
  writeFileSync(join(root, name, 'stream.yaml'), yaml);
  return join(root, name);
}
const io = (out: string[], cwd: string): CliIO => ({ out: (l) => out.push(l), err: () => {}, isTTY: false, progress: () => {}, env: {}, cwd });

const HEAD = 'name: cache-bad\nkind: query_stream\nset: document_workflow\ndescription: x\n';
const DOCS = 'documents:\n  - id: memo\n    version: 1\n    text: The meeting moved to Tuesday.\n';

describe('cache-docflow stream', () => {
  it('loads and validates: documents with versions, and queries that carry them', () => {
    const s = loadQueryStream(join(WORKLOADS, 'cache-docflow'));
    expect(s.set).toBe('document_workflow');
    expect(s.documents.size).toBeGreaterThanOrEqual(7);
    expect([...s.documents.keys()]).toEqual(expect.arrayContaining(['leave-policy@1', 'leave-policy@2']));
    expect(s.queries.filter((q) => q.documents).length).toBeGreaterThan(20);
    expect(s.queries.filter((q) => q.expect === 'miss').length).toBeGreaterThanOrEqual(5);
  });

  it('names file and line for a bad document ref, an unknown key in a document, and a repeated version', () => {
    const bad = streamDir('cache-bad', `${HEAD}${DOCS}queries:\n  - id: a\n    class: a\n    text: When is the meeting now?\n    answer: Tuesday.\n    documents: [memo@2]\n`);
    expect(() => loadQueryStream(bad)).toThrow(/stream\.yaml:14: query 'a' refers to document 'memo@2', which the stream does not define; defined: memo@1/);
    const key = streamDir('cache-bad', `${HEAD}${DOCS}    author: me\n`);
    expect(() => loadQueryStream(key)).toThrow(/stream\.yaml:9:\d+: unknown key 'author'/);
    const twice = streamDir('cache-bad', `${HEAD}${DOCS}  - id: memo\n    version: 1\n    text: Something else.\nqueries:\n  - { id: a, class: a, text: When is the meeting?, answer: Tuesday. }\n`);
    expect(() => loadQueryStream(twice)).toThrow(/stream\.yaml:10: document memo@1 appears twice/);
    const unversioned = streamDir('cache-bad', `${HEAD}${DOCS}queries:\n  - { id: a, class: a, text: When is the meeting?, answer: Tuesday., documents: [memo] }\n`);
    expect(() => loadQueryStream(unversioned)).toThrow(/stream\.yaml:10:\d+: \/queries\/0\/documents\/0: must match pattern/);
  });
});

describe('cache-docflow through Tier 3', () => {
  let run: StreamRun;
  beforeAll(async () => {
    run = await runStream(loadQueryStream(join(WORKLOADS, 'cache-docflow')), { cache: true, embedder: createHashingProvider(384), prices: loadPriceTable() });
  }, 120_000);
  const rec = (id: string) => run.records.find((r) => r.id === id)!;

  it('never serves a summary or an answer of a document after it was edited', () => {
    for (const id of ['leave-carry-after-edit', 'plans-compare-after-edit']) {
      const r = rec(id);
      expect(r.servedBy).toBeNull();
      // Only steps of unchanged documents may be held; each served one equals a fresh computation.
      for (const s of r.steps!) if (s.served) expect(s.key).toMatch(/hosting-basic@/);
    }
    expect(rec('leave-carry-after-edit').steps!.every((s) => !s.served)).toBe(true);
    const served = run.records.flatMap((r) => r.steps ?? []).filter((s) => s.served);
    expect(served.length).toBeGreaterThan(10);
    expect(served.every((s) => s.correct)).toBe(true);
  });

  it('serves steps shared across questions: a summary for another question, both summaries for a reworded comparison', () => {
    expect(rec('leave-approve').steps!.map((s) => [s.type, s.served])).toEqual([
      ['summarize', true],
      ['answer', false],
    ]);
    expect(rec('plans-compare-difference').steps!.map((s) => [s.type, s.served])).toEqual([
      ['summarize', true],
      ['summarize', true],
      ['compare', false],
    ]);
    expect(rec('basic-domains').steps![0]).toMatchObject({ type: 'summarize', served: true });
    expect(rec('plans-compare-reordered')).toMatchObject({ servedBy: 'intermediate', correct: true, spentUsd: '0' });
  });

  it('the same words about another document, and a reversed comparison, miss', () => {
    expect(rec('incident-0519-cause').steps!.some((s) => s.served)).toBe(false);
    expect(rec('pro-cheaper').steps!.find((s) => s.type === 'answer')!.served).toBe(false);
    expect(streamFigures(run.records).must_miss_classes_hit).toEqual([]);
  });

  it('figures: an intermediate row counting steps between semantic and all, and the Tier 3 costs', () => {
    const f = streamFigures(run.records);
    expect(f.tiers.map((t) => t.tier)).toEqual(['exact', 'semantic', 'intermediate', 'all']);
    const t3 = f.tiers[2]!;
    expect(t3.queries).toBe(f.tier3!.steps);
    expect(t3.hits).toBe(f.tier3!.steps_served);
    expect(t3.wrong_hits).toBe(0);
    expect(f.tier3!.queries).toBe(run.records.filter((r) => r.steps).length);
  });
});

describe('bench run / compare on cache-docflow', () => {
  it('prints the per-tier table with the intermediate row and writes a schema-valid JSON', async () => {
    const out: string[] = [];
    const root = tmp();
    const code = await runStreamCommand(
      { workloadsDir: WORKLOADS, names: ['cache-docflow'], cache: true, embedder: 'local:hashing-384', delta: null, gate: true, priorOffset: null, penalty: 10, seed: 0, json: join(root, 'r.json') },
      io(out, root),
    );
    expect(code).toBe(0);
    const text = out.join('\n');
    expect(text).toMatch(/│ intermediate \(steps\) +│ \d+ +│/);
    expect(text).toMatch(/tier 3: \d+ document queries, \d+ steps \(\d+ served\)/);
    expect(text).toMatch(/must-miss classes served: none/);
    const json = JSON.parse(readFileSync(join(root, 'r.json'), 'utf8')) as { streams: { figures: { tiers: { tier: string }[] } }[] };
    expect(json.streams[0]!.figures.tiers.map((t) => t.tier)).toContain('intermediate');
  }, 120_000);

  it('bench compare cache-off cache-on pairs the document queries', async () => {
    const out: string[] = [];
    const root = tmp();
    const code = await compareCacheArms({ workloadsDir: WORKLOADS, names: ['cache-docflow'], embedder: 'local:hashing-384', penalty: 10, json: join(root, 'c.json') }, io(out, root));
    expect(code).toBe(0);
    const row = (JSON.parse(readFileSync(join(root, 'c.json'), 'utf8')) as { rows: { stream: string; queries: number; hits: number; wrong_hits: number }[] }).rows[0]!;
    expect(row).toMatchObject({ stream: 'cache-docflow', queries: loadQueryStream(join(WORKLOADS, 'cache-docflow')).queries.length, wrong_hits: 0 });
    expect(row.hits).toBeGreaterThan(0);
  }, 120_000);
});
