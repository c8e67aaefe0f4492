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
