import { describe, expect, it } from 'vitest';
import { l2Normalize } from '../patterns/embeddings/embedding-provider.ts';
import { InMemoryVectorDatabase, VectorDimensionError } from './vector-database.ts';

const v = (...xs: number[]) => l2Normalize(Float32Array.from(xs));

describe('InMemoryVectorDatabase', () => {
  it('answers the nearest first within one partition only', () => {
    const db = new InMemoryVectorDatabase(3);
    db.upsert([
      { id: 'a', partition: 'p', vector: v(1, 0, 0) },
      { id: 'b', partition: 'p', vector: v(1, 1, 0) },
      { id: 'c', partition: 'q', vector: v(1, 0, 0) },
    ]);
    const hits = db.query('p', v(1, 0.1, 0), 5);
    expect(hits.map((h) => h.id)).toEqual(['a', 'b']);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    expect(db.query('empty', v(1, 0, 0), 5)).toEqual([]);
    expect(db.count()).toBe(3);
  });
  it('scores identical as 1, orthogonal as 0, opposite as -1', () => {
    const db = new InMemoryVectorDatabase(2);
    db.upsert([
      { id: 'same', partition: 'p', vector: v(1, 0) },
      { id: 'orth', partition: 'p', vector: v(0, 1) },
      { id: 'opp', partition: 'p', vector: v(-1, 0) },
    ]);
    const byId = Object.fromEntries(db.query('p', v(1, 0), 3).map((h) => [h.id, h.score]));
    expect(byId['same']).toBeCloseTo(1);
    expect(byId['orth']).toBeCloseTo(0);
    expect(byId['opp']).toBeCloseTo(-1);
  });
  it('deletes (swap-remove keeps the rest findable) and moves an id between partitions on upsert', () => {
    const db = new InMemoryVectorDatabase(2);
    db.upsert(['a', 'b', 'c'].map((id, i) => ({ id, partition: 'p', vector: v(1, i) })));
    expect(db.delete(['a', 'zzz'])).toBe(1);
    expect(db.query('p', v(1, 2), 5).map((h) => h.id).sort()).toEqual(['b', 'c']);
    db.upsert([{ id: 'c', partition: 'q', vector: v(0, 1) }]);
    expect(db.query('p', v(1, 2), 5).map((h) => h.id)).toEqual(['b']);
    expect(db.query('q', v(0, 1), 5).map((h) => h.id)).toEqual(['c']);
    expect(db.count()).toBe(2);
  });
  it('limits to topK and refuses wrong dimensions and bad k', () => {
    const db = new InMemoryVectorDatabase(2);
    db.upsert(Array.from({ length: 20 }, (_, i) => ({ id: `e${i}`, partition: 'p', vector: v(1, i / 20) })));
    expect(db.query('p', v(1, 0), 5)).toHaveLength(5);
    expect(() => db.upsert([{ id: 'x', partition: 'p', vector: v(1, 0, 0) }])).toThrow(VectorDimensionError);
    expect(() => db.query('p', v(1, 0, 0), 1)).toThrow(VectorDimensionError);
    expect(() => db.query('p', v(1, 0), 0)).toThrow(RangeError);
  });
});

describe('InMemoryVectorDatabase past the SIMD threshold', () => {
  it('gives the same nearest neighbours as a plain scan, through upserts and deletes', () => {
    let seed = 3;
    const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32) * 2 - 1;
    const vec = () => l2Normalize(Float32Array.from({ length: 16 }, rand));
    const db = new InMemoryVectorDatabase(16);
    const all = new Map<string, Float32Array>();
    for (let i = 0; i < 700; i++) {
      const v = vec();
      all.set(`e${i}`, v);
      db.upsert([{ id: `e${i}`, partition: 'p', vector: v }]);
    }
    const gone = [...all.keys()].filter((_, i) => i % 3 === 0);
    db.delete(gone);
    gone.forEach((id) => all.delete(id));
    for (let t = 0; t < 20; t++) {
      const q = vec();
      const expected = [...all.entries()]
        .map(([id, v]) => ({ id, score: v.reduce((s, x, i) => s + x * q[i]!, 0) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, 5)
        .map((h) => h.id);
      expect(db.query('p', q, 5).map((h) => h.id)).toEqual(expected);
    }
    expect(db.count()).toBe(all.size);
  });
});
