import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHashingProvider } from '../../runtime/patterns/embeddings/hashing-provider.ts';
import { loadPriceTable } from '../../runtime/pricing/index.ts';
import { SetupError } from '../errors.ts';
import { foldOf, runCrossFitted } from './cross-fit.ts';
import { loadQueryStream } from './load-stream.ts';

const WORKLOADS = join(import.meta.dirname, '..', '..', 'workloads');
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function pairsStream(n: number): string {
  const root = mkdtempSync(join(tmpdir(), 'xfit-'));
  dirs.push(root);
  const dir = join(root, 'cache-pairs');
  mkdirSync(dir);
  const topics = ['tomatoes', 'owls', 'glaciers', 'violins', 'comets', 'bridges', 'tea', 'maples', 'sharks', 'deserts', 'lighthouses', 'pumpkins'];
  const pairs = Array.from({ length: n }, (_, i) => ({
    origin: `Please explain how ${topics[i % topics.length]} grow in cold and stony soil`,
    similar: `Please explain briefly how ${topics[i % topics.length]} grow in cold and stony soil`,
  }));
  writeFileSync(join(dir, 'pairs.json'), JSON.stringify(pairs));
  writeFileSync(join(dir, 'stream.yaml'), 'name: cache-pairs\nkind: query_stream\nset: paraphrase\ndescription: d\nsource: { format: gptcache_pairs, file: pairs.json }\n');
  return dir;
}

describe('cross-fitted stream replay', () => {
  it('splits by a fixed hash of the id: the same fold every time, both folds used', () => {
    const ids = Array.from({ length: 200 }, (_, i) => `similar-${i}`);
    expect(ids.map(foldOf)).toEqual(ids.map(foldOf));
    const ones = ids.filter((id) => foldOf(id) === 1).length;
    expect(ones).toBeGreaterThan(70);
    expect(ones).toBeLessThan(130);
  });

  it('reports every asked query exactly once, in stream order, each fold calibrated by the other', async () => {
    const stream = loadQueryStream(pairsStream(12));
    const run = await runCrossFitted(stream, { embedder: createHashingProvider(384), prices: loadPriceTable(), tuner: { delta: 0.05, priorOffset: -0.5 } });
    const asked = stream.queries.filter((q) => !q.warm).map((q) => q.id);
    expect(run.records.map((r) => r.id)).toEqual(asked);
    expect(run.foldSizes[0] + run.foldSizes[1]).toBe(asked.length);
    expect(run.foldSizes[0]).toBe(asked.filter((id) => foldOf(id) === 0).length);
    // A calibration replay labels at most the other fold's queries (each asked once).
    expect(run.calibrationLabels[0]).toBeLessThanOrEqual(run.foldSizes[1]);
    expect(run.calibrationLabels[1]).toBeLessThanOrEqual(run.foldSizes[0]);
    expect(run.calibrationLabels[0] + run.calibrationLabels[1]).toBeGreaterThan(0);
  }, 60_000);

  it('refuses a stream that learns in order, and a fixed threshold', async () => {
    const o = { embedder: createHashingProvider(384), prices: loadPriceTable() };
    await expect(runCrossFitted(loadQueryStream(join(WORKLOADS, 'cache-adversarial')), o)).rejects.toThrow(SetupError);
    await expect(runCrossFitted(loadQueryStream(pairsStream(4)), { ...o, tuner: { delta: 1 } })).rejects.toThrow(/learned bound/);
  });
});
