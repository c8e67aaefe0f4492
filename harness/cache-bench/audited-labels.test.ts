import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SetupError } from '../errors.ts';
import { loadAuditedMerges } from './audited-labels.ts';
import { gptCacheQueries, loadQueryStream } from './load-stream.ts';

const GPTCACHE = join(import.meta.dirname, '..', '..', 'workloads', 'cache-gptcache');
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function yamlFile(body: string): string {
  const d = mkdtempSync(join(tmpdir(), 'audit-'));
  dirs.push(d);
  const f = join(d, 'equivalent-pairs.yaml');
  writeFileSync(f, body);
  return f;
}

const classOf = (qs: { id: string; class: string }[], id: string) => qs.find((q) => q.id === id)!.class;

describe('audited labels of GPTCache pairs', () => {
  it("leaves GPTCache's own labels as the default and merges only the audited pairs", () => {
    const own = loadQueryStream(GPTCACHE);
    const audited = loadQueryStream(GPTCACHE, 'audited');
    expect(own.labels).toBe('gptcache');
    expect(audited.labels).toBe('audited');
    expect(audited.queries.map((q) => q.text)).toEqual(own.queries.map((q) => q.text));
    // Pairs 334 and 998 differ by one capital letter: one class when audited, two under GPTCache's labels.
    expect(classOf(own.queries, 'similar-334')).not.toBe(classOf(own.queries, 'similar-998'));
    expect(classOf(audited.queries, 'similar-334')).toBe(classOf(audited.queries, 'similar-998'));
    // enable vs disable progress bar (cosine 0.986) was reviewed and not merged.
    expect(classOf(audited.queries, 'similar-729')).not.toBe(classOf(audited.queries, 'similar-730'));
    const classes = (qs: { class: string }[]) => new Set(qs.map((q) => q.class)).size;
    expect(classes(audited.queries)).toBeLessThan(classes(own.queries));
    // One class, one answer still holds after merging.
    const answers = new Map<string, Set<string>>();
    for (const q of audited.queries) answers.set(q.class, (answers.get(q.class) ?? new Set()).add(q.answer));
    expect([...answers.values()].every((s) => s.size === 1)).toBe(true);
  });

  it('merges chain: a~b and b~c put a, b and c in one class', () => {
    const pairs = [
      { origin: 'o0', similar: 's0' },
      { origin: 'o1', similar: 's1' },
      { origin: 'o2', similar: 's2' },
      { origin: 'o3', similar: 's3' },
    ];
    const qs = gptCacheQueries('f', pairs, [
      [0, 1],
      [1, 2],
    ]);
    expect(new Set(['similar-0', 'similar-1', 'similar-2'].map((id) => classOf(qs, id))).size).toBe(1);
    expect(classOf(qs, 'similar-3')).not.toBe(classOf(qs, 'similar-0'));
  });

  it('refuses a merge whose quoted text is not that pair’s, an unknown pair, or a wrong count', () => {
    const pairs = [
      { origin: 'A cat sat.', similar: 'The cat sat.' },
      { origin: 'A dog sat.', similar: 'The dog sat.' },
    ];
    const head = (n: number) => `review: { embedder: x, min_cosine: 0.95, class_pairs_reviewed: 1, class_pairs_merged: ${n} }\nmerges:\n`;
    const ok = `${head(1)}  - { a: { pairs: [0], text: "The cat sat." }, b: { pairs: [1], text: "A dog sat." }, reason: r }\n`;
    expect(loadAuditedMerges(yamlFile(ok), pairs)).toEqual([[0, 1]]);
    expect(() => loadAuditedMerges(yamlFile(ok.replace('A dog sat.', 'A dog stood.')), pairs)).toThrow(/neither the origin nor the similar of pair 1/);
    expect(() => loadAuditedMerges(yamlFile(ok.replace('pairs: [1]', 'pairs: [7]')), pairs)).toThrow(/names pair 7/);
    expect(() => loadAuditedMerges(yamlFile(ok.replace('merged: 1', 'merged: 2')), pairs)).toThrow(SetupError);
    expect(() => loadAuditedMerges(yamlFile(ok.replace('reason: r', 'why: r')), pairs)).toThrow(SetupError);
  });

  it('refuses audited labels on a stream that has none', () => {
    const root = mkdtempSync(join(tmpdir(), 'streams-'));
    dirs.push(root);
    mkdirSync(join(root, 'cache-x'));
    writeFileSync(join(root, 'cache-x', 'stream.yaml'), 'name: cache-x\nkind: query_stream\nset: adversarial\ndescription: d\nqueries:\n  - { id: a, class: c, text: hello there world, answer: x }\n');
    expect(() => loadQueryStream(join(root, 'cache-x'), 'audited')).toThrow(/needs a source with audited_labels/);
  });
});
