import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHashingProvider } from '../../runtime/patterns/embeddings/hashing-provider.ts';
import { loadPriceTable } from '../../runtime/pricing/index.ts';
import { SetupError } from '../errors.ts';
import { gptCacheQueries, loadQueryStream } from './load-stream.ts';
import { runStream } from './run-stream.ts';
import { runStreamCommand } from '../cli/commands/run/run-stream-command.ts';
import { selectsQueryStreams } from './stream-options.ts';
import { percentile, streamFigures, type QueryRecord } from './stream-metrics.ts';

const WORKLOADS = join(import.meta.dirname, '..', '..', 'workloads');
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
function streamDir(name: string, yaml: string): string {
  const root = mkdtempSync(join(tmpdir(), 'streams-'));
  dirs.push(root);
  mkdirSync(join(root, name));
  writeFileSync(join(root, name, 'stream.yaml'), yaml);
  return root;
}

const rec = (o: Partial<QueryRecord>): QueryRecord => ({
  id: 'q', class: 'c', repeat: true, expectMiss: false, servedBy: null, correct: null, explored: false, similarity: null, threshold: null, matchedQuery: null, missReason: null,
  costUsd: '0.01', spentUsd: '0.01', lookupUs: 10, exactLookupUs: 1, embedUs: 0, searchUs: 0, tier2Consulted: false, ...o,
});

describe('query stream loading', () => {
  it('loads every shipped stream', () => {
    for (const n of ['cache-gptcache', 'cache-adversarial', 'cache-multiturn', 'cache-agent']) expect(loadQueryStream(join(WORKLOADS, n)).queries.length).toBeGreaterThan(10);
    const g = loadQueryStream(join(WORKLOADS, 'cache-gptcache'));
    expect(g.queries.filter((q) => q.warm)).toHaveLength(999);
    expect(g.queries.filter((q) => !q.warm)).toHaveLength(999);
  });
  it('joins GPTCache pairs that share a text into one class', () => {
    const qs = gptCacheQueries('f', [
      { origin: 'A', similar: 'a1' },
      { origin: 'A', similar: 'a2' },
      { origin: 'B', similar: 'a2' },
      { origin: 'C', similar: 'c1' },
    ]);
    const cls = (id: string) => qs.find((q) => q.id === id)!.class;
    expect(cls('origin-0')).toBe(cls('origin-1'));
    expect(cls('origin-2')).toBe(cls('origin-0'));
    expect(cls('origin-3')).not.toBe(cls('origin-0'));
    expect(() => gptCacheQueries('f', [{ origin: 1 }])).toThrow(SetupError);
  });
  it('names the file, line and fix for an unknown key, and refuses a class with two answers', () => {
    const root = streamDir('cache-bad', 'name: cache-bad\nkind: query_stream\nset: agent\ndescription: x\nqueries:\n  - { id: a, class: c, text: hi there you, answer: one, colour: red }\n');
    expect(() => loadQueryStream(join(root, 'cache-bad'))).toThrow(/stream\.yaml:6.*unknown key 'colour'/);
    const two = streamDir('cache-two', 'name: cache-two\nkind: query_stream\nset: agent\ndescription: x\nqueries:\n  - { id: a, class: c, text: t, answer: one }\n  - { id: b, class: c, text: t, answer: two }\n');
    expect(() => loadQueryStream(join(two, 'cache-two'))).toThrow(/one class, one answer/);
  });
  it('refuses to mix streams with agent workloads in one invocation', () => {
    expect(selectsQueryStreams(WORKLOADS, ['cache-agent'])).toBe(true);
    expect(selectsQueryStreams(WORKLOADS, ['fix-a-bug-small'])).toBe(false);
    expect(() => selectsQueryStreams(WORKLOADS, ['cache-agent', 'fix-a-bug-small'])).toThrow(SetupError);
  });
});

describe('stream figures', () => {
  it('counts hits, wrong hits and must-miss classes per tier, with Wilson intervals and the penalty', () => {
    const f = streamFigures(
      [
        rec({ id: '1', class: 'a', repeat: false }),
        rec({ id: '2', class: 'a', servedBy: 'exact', correct: true, spentUsd: '0' }),
        rec({ id: '3', class: 'b', servedBy: 'semantic', correct: true, spentUsd: '0', tier2Consulted: true, searchUs: 5, embedUs: 50 }),
        rec({ id: '4', class: 'novel', repeat: false, servedBy: 'semantic', correct: false, spentUsd: '0', tier2Consulted: true, searchUs: 7, embedUs: 60 }),
      ],
      10,
    );
    const [exact, semantic, all] = f.tiers;
    expect(exact).toMatchObject({ hits: 1, wrong_hits: 0, avoided_usd: '0.01' });
    expect(semantic).toMatchObject({ hits: 2, wrong_hits: 1, avoided_usd: '0.02', penalty_usd: '0.1', net_savings_usd: '-0.08' });
    expect(all!.false_hit_rate).toMatchObject({ k: 1, n: 4 });
    expect(all!.precision.k).toBe(2);
    expect(all!.hit_rate_on_repeats).toMatchObject({ k: 2, n: 2 });
    expect(f.must_miss_classes_hit).toEqual(['novel']);
    expect(f.cost_off_usd).toBe('0.04');
    expect(f.cost_on_usd).toBe('0.01');
    expect(semantic!.lookup_us_p95).toBe(7);
  });
  it('percentile is nearest-rank and null on empty input', () => {
    expect(percentile([], 50)).toBeNull();
    expect(percentile([5, 1, 3], 50)).toBe(3);
    expect(percentile([1, 2, 3, 4], 95)).toBe(4);
  });
});

describe('runStream end to end (hashing embedder)', () => {
  it('serves the adversarial bases again from Tier 1 and no variant, with the learned bound', async () => {
    const stream = loadQueryStream(join(WORKLOADS, 'cache-adversarial'));
    const run = await runStream(stream, { cache: true, embedder: createHashingProvider(384), prices: loadPriceTable() });
    const f = streamFigures(run.records);
    expect(f.must_miss_classes_hit).toEqual([]);
    expect(f.tiers[0]!.hits).toBe(57);
    expect(f.tiers[2]!.wrong_hits).toBe(0);
  }, 120_000);
  it('the agent stream is never served, even with the bound and the gate off', async () => {
    const stream = loadQueryStream(join(WORKLOADS, 'cache-agent'));
    const run = await runStream(stream, { cache: true, embedder: createHashingProvider(384), prices: loadPriceTable(), gate: false, tuner: { delta: 1, priorOffset: -0.8 } });
    expect(run.records.every((r) => r.servedBy === null)).toBe(true);
    expect(run.providerCalls).toBe(stream.queries.length);
  }, 120_000);
  it('the multi-turn stream never serves across conversations or tenants, even with a fixed low threshold', async () => {
    const stream = loadQueryStream(join(WORKLOADS, 'cache-multiturn'));
    const run = await runStream(stream, { cache: true, embedder: createHashingProvider(384), prices: loadPriceTable(), tuner: { delta: 1, priorOffset: -0.8 } });
    const f = streamFigures(run.records);
    expect(f.must_miss_classes_hit).toEqual([]);
    expect(f.tiers[2]!.hits).toBe(4);
  }, 120_000);
  it('bench run prints the per-tier table and writes the JSON', async () => {
    const out: string[] = [];
    const root = mkdtempSync(join(tmpdir(), 'stream-cmd-'));
    dirs.push(root);
    const code = await runStreamCommand(
      { workloadsDir: WORKLOADS, names: ['cache-multiturn'], cache: true, embedder: 'local:hashing-384', delta: null, gate: true, priorOffset: null, penalty: 10, seed: 0, json: join(root, 'r.json') },
      { out: (l) => out.push(l), err: () => {}, isTTY: false, progress: () => {}, env: {}, cwd: root },
    );
    expect(code).toBe(0);
    const text = out.join('\n');
    expect(text).toMatch(/false hits, must-miss \[95% CI\].*false hits, all \[95% CI\]/);
    expect(text).toMatch(/must-miss classes served: none/);
    expect(text).toMatch(/│ exact +│ 4 /);
  }, 120_000);
});

describe('contextual embedding on a stream (--cache-contextual on)', () => {
  it('embeds every Tier 2 query behind the labelled [emulated] summary, and the report says so', async () => {
    const hashing = createHashingProvider(384);
    const embedded: string[] = [];
    const spy = { ...hashing, provider_id: hashing.provider_id, dim: hashing.dim, max_input_tokens: hashing.max_input_tokens, embed: (t: string[]) => (embedded.push(...t), hashing.embed(t)), close: () => hashing.close() };
    const stream = loadQueryStream(join(WORKLOADS, 'cache-adversarial'));
    await runStream(stream, { cache: true, embedder: spy, prices: loadPriceTable(), contextual: true });
    const queried = embedded.filter((t) => t !== 'warm-up');
    expect(queried.length).toBeGreaterThan(0);
    expect(queried.every((t) => t.startsWith('[emulated] '))).toBe(true);
    embedded.length = 0;
    await runStream(stream, { cache: true, embedder: spy, prices: loadPriceTable() });
    expect(embedded.some((t) => t.startsWith('[emulated]'))).toBe(false);

    const root = mkdtempSync(join(tmpdir(), 'ctx-'));
    dirs.push(root);
    const out: string[] = [];
    await runStreamCommand(
      { workloadsDir: WORKLOADS, names: ['cache-multiturn'], cache: true, embedder: 'local:hashing-384', delta: null, gate: true, priorOffset: null, penalty: 10, seed: 0, json: join(root, 'r.json'), contextual: true },
      { out: (l) => out.push(l), err: () => {}, isTTY: false, progress: () => {}, env: {}, cwd: root },
    );
    expect(out.join('\n')).toMatch(/contextual embedding: .*\[emulated\]/);
    expect(JSON.parse(readFileSync(join(root, 'r.json'), 'utf8')).streams[0].contextual_embedding).toBe('emulated');
  }, 120_000);
});

describe('Ctrl-C during a stream', () => {
  it('stops after the query in progress, keeps what was replayed, and the command says so and exits 1', async () => {
    const hashing = createHashingProvider(384);
    const stop = new AbortController();
    let embeds = 0;
    // Ctrl-C arrives while the 20th lookup embeds: the replay stops at the next query boundary.
    const spy = { ...hashing, provider_id: hashing.provider_id, dim: hashing.dim, max_input_tokens: hashing.max_input_tokens, embed: (t: string[]) => (++embeds === 20 && stop.abort(), hashing.embed(t)), close: () => hashing.close() };
    const stream = loadQueryStream(join(WORKLOADS, 'cache-adversarial'));
    const run = await runStream(stream, { cache: true, embedder: spy, prices: loadPriceTable(), signal: stop.signal });
    expect(run.interrupted).toBe(true);
    expect(run.records.length).toBeGreaterThan(0);
    expect(run.records.length).toBeLessThan(stream.queries.length);

    const root = mkdtempSync(join(tmpdir(), 'int-'));
    dirs.push(root);
    const out: string[] = [];
    const aborted = new AbortController();
    aborted.abort();
    const code = await runStreamCommand(
      { workloadsDir: WORKLOADS, names: ['cache-multiturn', 'cache-agent'], cache: true, embedder: 'local:hashing-384', delta: null, gate: true, priorOffset: null, penalty: 10, seed: 0, json: join(root, 'r.json') },
      { out: (l) => out.push(l), err: () => {}, isTTY: false, progress: () => {}, env: {}, cwd: root, interrupt: aborted.signal },
    );
    expect(code).toBe(1);
    expect(out.join('\n')).toMatch(/interrupted \(Ctrl-C\) after 0 of 17 asked queries/);
    const report = JSON.parse(readFileSync(join(root, 'r.json'), 'utf8'));
    // The first stream is reported as interrupted; the second is not started.
    expect(report.streams.map((e: { name: string; status?: string }) => [e.name, e.status])).toEqual([['cache-multiturn', 'interrupted']]);
  }, 120_000);
});

describe('cache compare pairing', () => {
  it('pairs by query and charges the penalty for a wrong hit', async () => {
    const { pairArms } = await import('./compare-cache.ts');
    const off = [
      { id: 'a', spentUsd: '0.01' },
      { id: 'b', spentUsd: '0.02' },
    ];
    const on = [
      { id: 'a', spentUsd: '0', costUsd: '0.01', servedBy: 'exact', correct: true },
      { id: 'b', spentUsd: '0', costUsd: '0.02', servedBy: 'semantic', correct: false },
    ];
    const paired = pairArms(off, on, 10);
    expect(paired).toMatchObject({ hits: 2, wrong: 1 });
    expect(paired.savings[0]).toBeCloseTo(0.01, 12);
    expect(paired.savings[1]).toBeCloseTo(-0.18, 12);
    expect(() => pairArms(off, [on[1]!, on[0]!], 10)).toThrow(/same queries/);
  });
});
