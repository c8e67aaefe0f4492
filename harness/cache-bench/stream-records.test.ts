// Per-query records of a stream run, the must-miss false-hit rate, `analyze --stream-report`, and
// `--db-path` on a stream (issue 23 item 7); no must-miss query of the adversarial stream served at any
// threshold or delta, gate on (issue 22 item 5).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gateMismatch, gateSignature } from '../../runtime/cache/exact-token-gate.ts';
import { newEntryThresholdState, AdaptiveThresholdTuner, TASK_TYPES } from '../../runtime/cache/threshold-tuner.ts';
import { createHashingProvider } from '../../runtime/patterns/embeddings/hashing-provider.ts';
import { loadPriceTable } from '../../runtime/pricing/index.ts';
import { bench, REPO_ROOT, tempDir } from '../../test/support/cli.ts';
import { loadQueryStream } from './load-stream.ts';
import { runStream } from './run-stream.ts';
import { streamFigures, type QueryRecord } from './stream-metrics.ts';

const WORKLOADS = join(REPO_ROOT, 'workloads');

const rec = (o: Partial<QueryRecord>): QueryRecord => ({
  id: 'q', class: 'c', repeat: true, expectMiss: false, servedBy: null, correct: null, explored: false, similarity: null, threshold: null, matchedQuery: null, missReason: null,
  costUsd: '0.01', spentUsd: '0.01', lookupUs: 10, exactLookupUs: 1, embedUs: 0, searchUs: 0, tier2Consulted: false, ...o,
});

describe('the false-hit rate over the must-miss queries', () => {
  it('divides wrong hits on must-miss queries by the must-miss queries, beside the rate over all queries', () => {
    // 28 must-miss variants (27 served wrongly) among 78 queries: the case. 34.6% over all, 96.4% over the 28.
    const records = [
      ...Array.from({ length: 27 }, (_, i) => rec({ id: `v${i}`, class: `v${i}`, repeat: false, expectMiss: true, servedBy: 'semantic', correct: false })),
      rec({ id: 'v27', class: 'v27', repeat: false, expectMiss: true }),
      ...Array.from({ length: 50 }, (_, i) => rec({ id: `r${i}`, class: 'base' })),
    ];
    const all = streamFigures(records).tiers.find((t) => t.tier === 'all')!;
    expect(all.false_hit_rate).toMatchObject({ k: 27, n: 78 });
    expect(all.false_hit_rate_must_miss).toMatchObject({ k: 27, n: 28 });
    expect(streamFigures(records).must_miss).toEqual({ queries: 28, declared: 28, novel: 0 });
  });
  it('with no wrong hit, bounds the must-miss risk by its own (smaller) denominator', () => {
    const records = [
      ...Array.from({ length: 28 }, (_, i) => rec({ id: `v${i}`, class: `v${i}`, repeat: false, expectMiss: true })),
      ...Array.from({ length: 50 }, (_, i) => rec({ id: `r${i}`, class: 'base' })),
    ];
    const all = streamFigures(records).tiers.find((t) => t.tier === 'all')!;
    expect(all.false_hit_rate.ci.hi).toBeCloseTo(0.0469, 3);
    expect(all.false_hit_rate_must_miss.ci.hi).toBeCloseTo(0.1206, 3);
  });
  it('counts a first ask of a class as must-miss (nothing held could answer it), and a wrong hit on a repeat only in the rate over all', () => {
    const f = streamFigures([rec({ id: 'a', class: 'a', repeat: false }), rec({ id: 'b', class: 'b', repeat: true, servedBy: 'semantic', correct: false })]);
    expect(f.must_miss).toEqual({ queries: 1, declared: 0, novel: 1 });
    const all = f.tiers.find((t) => t.tier === 'all')!;
    expect(all.false_hit_rate_must_miss).toMatchObject({ k: 0, n: 1 });
    expect(all.false_hit_rate).toMatchObject({ k: 1, n: 2 });
  });
});

describe('stream reports keep per-query records, and analyze recomputes every figure from them', () => {
  const run = async (extra: string[] = []) => {
    const json = join(tempDir(), 'streams.json');
    const r = await bench(['run', '--workload', 'cache-adversarial', '--embedding-provider', 'local:hashing-384', '--cache-delta', '1', '--cache-gate', 'off', '--json', json, '--wide', ...extra]);
    return { ...r, json };
  };
  it('writes one record per query (id, class, tier, similarity, threshold, served, right or wrong, cost) and prints both false-hit rates with their denominators', async () => {
    const r = await run();
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/false hits, must-miss \[95% CI\].*false hits, all \[95% CI\]/);
    expect(r.stdout).toMatch(/wrong hits over the 127 must-miss queries \(the risk a user runs: 70 declared expect: miss, 57 first asks of a class/);
    expect(r.stdout).toMatch(/│ all +│ \d+ +│.*│ \d+\/127 [\d.]+% \[[\d.]+, [\d.]+\] +│ \d+\/191 /);
    const report = JSON.parse(readFileSync(r.json, 'utf8'));
    const s = report.streams[0];
    expect(s.records).toHaveLength(191);
    const served = s.records.find((x: { served_by: string | null; expect_miss: boolean }) => x.served_by === 'semantic' && x.expect_miss);
    // At --cache-delta 1 the threshold is the task type's fixed prior (0.8-0.97), and the hit reached it.
    expect(served.correct).toBe(false);
    expect(served.threshold).toBeGreaterThanOrEqual(0.8);
    expect(served.similarity).toBeGreaterThanOrEqual(served.threshold);
    expect(s.figures.must_miss).toEqual({ queries: 127, declared: 70, novel: 57 });
  }, 120_000);
  it('analyze --skip-execute --stream-report prints the same figures, and names a figure its records contradict', async () => {
    const { json } = await run();
    const ok = await bench(['analyze', '--skip-execute', '--stream-report', json]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/recomputed from 191 per-query records: every figure equals the report's/);
    const md = await bench(['analyze', '--skip-execute', '--stream-report', json, '--markdown']);
    expect(md.stdout).toMatch(/^\| tier \| hits \|.*\| false hits, must-miss \[95% CI\] \| false hits, all \[95% CI\] \|/m);
    // Flip one wrong hit to right: the written figures no longer follow from the records.
    const report = JSON.parse(readFileSync(json, 'utf8'));
    report.streams[0].records.find((x: { correct: boolean | null }) => x.correct === false).correct = true;
    writeFileSync(json, JSON.stringify(report));
    const bad = await bench(['analyze', '--skip-execute', '--stream-report', json]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/MISMATCH: .*streams\[0\] \(cache-adversarial\): the written figures\.tiers\[1\]\.wrong_hits \(report \d+, recomputed \d+\)/);
  }, 120_000);
  it('refuses a report without records (written before they were kept), naming the file and the fix', async () => {
    const { json } = await run();
    const report = JSON.parse(readFileSync(json, 'utf8'));
    delete report.streams[0].records;
    writeFileSync(json, JSON.stringify(report));
    const r = await bench(['analyze', '--skip-execute', '--stream-report', json]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(json);
    expect(r.stderr).toMatch(/written before per-query records were kept: run the stream again/);
  }, 120_000);
  it('refuses --db-path on a stream run (exit 2, says where the records go) instead of ignoring it', async () => {
    const db = join(tempDir(), 'trace.db');
    const r = await bench(['run', '--workload', 'cache-adversarial', '--db-path', db]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--db-path .*trace\.db: query streams \(cache-adversarial\) write no trace DB; their per-query records go to the JSON report \(--json <path>\)/);
  });
});

describe('the gate on cache-adversarial at any threshold', () => {
  const stream = loadQueryStream(join(WORKLOADS, 'cache-adversarial'));
  /** Wrong hits on must-miss queries (declared expect: miss, or the first ask of a class) and the must-miss denominator. */
  const mustMissServed = (records: readonly QueryRecord[]) => {
    const all = streamFigures(records).tiers.find((t) => t.tier === 'all')!.false_hit_rate_must_miss;
    return { served: all.k, of: all.n };
  };
  const run = (tuner: Parameters<typeof runStream>[1]['tuner'], gate = true) => runStream(stream, { cache: true, embedder: createHashingProvider(384), prices: loadPriceTable(), tuner, gate });

  it('refuses every must-miss query against every query asked before it, so no embedder, threshold or delta can serve one', () => {
    // The gate judges each candidate the search returns; a threshold or bound only narrows them. So refusing
    // every (must-miss, earlier query) pair is the whole guarantee, whatever the similarity.
    const seen = new Set<string>();
    const passed: string[] = [];
    const sig = new Map(stream.queries.map((q) => [q.text, gateSignature(q.text)]));
    stream.queries.forEach((q, i) => {
      const mustMiss = q.expect === 'miss' || !seen.has(q.class);
      seen.add(q.class);
      if (!mustMiss) return;
      for (const p of stream.queries.slice(0, i)) if (gateMismatch(sig.get(q.text)!, sig.get(p.text)!) === null) passed.push(`${q.id} <- ${p.id}`);
    });
    expect(passed).toEqual([]);
    // The stream's paraphrases (a number written another way) still pass against their base.
    const text = (id: string) => stream.queries.find((q) => q.id === id)!.text;
    expect(gateMismatch(gateSignature(text('g25-p0')), gateSignature(text('g25-base')))).toBeNull();
    expect(gateMismatch(gateSignature(text('g29-p0')), gateSignature(text('g29-base')))).toBeNull();
    // So do the clock times written the 24-hour way ("9 am" / "09:00").
    expect(gateMismatch(gateSignature(text('g50-p0')), gateSignature(text('g50-base')))).toBeNull();
    expect(gateMismatch(gateSignature(text('g52-p0')), gateSignature(text('g52-base')))).toBeNull();
  });
  it('serves no must-miss query at any fixed threshold down to the lowest the CLI allows (--cache-delta 1, prior offset -1 to 0.1)', async () => {
    for (const priorOffset of [-1, -0.5, -0.3, -0.25, -0.2, -0.15, -0.1, 0, 0.1]) {
      const r = await run({ delta: 1, priorOffset });
      expect(mustMissServed(r.records), `offset ${priorOffset}`).toEqual({ served: 0, of: 127 });
    }
    // Paraphrases are still served at the lowest threshold, and without the gate the same run serves dozens of must-miss queries (the test can fail).
    const lowest = await run({ delta: 1, priorOffset: -1 });
    expect(lowest.records.filter((r) => r.servedBy === 'semantic').map((r) => r.id)).toContain('g25-p0');
    expect(mustMissServed((await run({ delta: 1, priorOffset: -1 }, false)).records).served).toBeGreaterThan(20);
  }, 120_000);
  it('serves no must-miss query under the learned bound once the ledger has certified every similarity, at several deltas', async () => {
    for (const delta of [0.01, 0.05, 0.1, 0.5]) {
      const tuner = new AdaptiveThresholdTuner({ delta, priorOffset: -1, exploreRate: 0 });
      // 400 agreeing labels at the floor of every task type: the bound is met at every similarity, as after many genuine paraphrases.
      for (const t of TASK_TYPES) for (let i = 0; i < 400; i++) tuner.record(t, tuner.getThreshold(t) + 0.002, true, newEntryThresholdState());
      const r = await run(tuner);
      expect(r.records.some((x) => x.servedBy === 'semantic'), `delta ${delta}`).toBe(true);
      expect(mustMissServed(r.records), `delta ${delta}`).toEqual({ served: 0, of: 127 });
    }
  }, 120_000);
});
