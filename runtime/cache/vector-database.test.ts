import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { l2Normalize } from '../patterns/embeddings/embedding-provider.ts';
import { dotsJs } from '../patterns/embeddings/simd-dots.ts';
import { InMemoryVectorDatabase, type InMemoryVectorDatabaseOptions, VectorDimensionError, type VectorHit } from './vector-database.ts';

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

describe('InMemoryVectorDatabase (§6.7 cases)', () => {
  it('an empty database answers every query with nothing and counts 0', () => {
    const db = new InMemoryVectorDatabase(3);
    expect(db.count()).toBe(0);
    expect(db.query('p', v(1, 0, 0), 5)).toEqual([]);
    expect(db.delete(['nothing'])).toBe(0);
  });

  it('upsert returns how many records it took; re-upserting an id replaces its vector and keeps the count', () => {
    const db = new InMemoryVectorDatabase(2);
    expect(db.upsert([{ id: 'a', partition: 'p', vector: v(1, 0) }, { id: 'b', partition: 'p', vector: v(0, 1) }])).toBe(2);
    expect(db.upsert([{ id: 'a', partition: 'p', vector: v(-1, 0) }])).toBe(1);
    expect(db.count()).toBe(2);
    const hits = db.query('p', v(-1, 0), 2);
    expect(hits[0]).toEqual({ id: 'a', score: expect.closeTo(1, 6) });
  });

  it('count follows upserts and deletes across partitions', () => {
    const db = new InMemoryVectorDatabase(2);
    db.upsert(Array.from({ length: 6 }, (_, i) => ({ id: `e${i}`, partition: i % 2 ? 'odd' : 'even', vector: v(1, i) })));
    expect(db.count()).toBe(6);
    expect(db.delete(['e0', 'e1', 'e1'])).toBe(2);
    expect(db.count()).toBe(4);
    expect(db.query('even', v(1, 0), 10).map((h) => h.id).sort()).toEqual(['e2', 'e4']);
    expect(db.query('odd', v(1, 0), 10).map((h) => h.id).sort()).toEqual(['e3', 'e5']);
  });

  it('a partition emptied by deletes answers nothing, and takes rows again afterwards', () => {
    const db = new InMemoryVectorDatabase(2);
    db.upsert([{ id: 'a', partition: 'p', vector: v(1, 0) }]);
    db.delete(['a']);
    expect(db.query('p', v(1, 0), 5)).toEqual([]);
    db.upsert([{ id: 'b', partition: 'p', vector: v(0, 1) }]);
    expect(db.query('p', v(1, 0), 5).map((h) => h.id)).toEqual(['b']);
  });

  it('the partition is the filter: a row never answers a query on another partition, however close', () => {
    const db = new InMemoryVectorDatabase(2);
    db.upsert([{ id: 'tenant-a', partition: 'A', vector: v(1, 0) }, { id: 'tenant-b', partition: 'B', vector: v(0, 1) }]);
    expect(db.query('B', v(1, 0), 5).map((h) => h.id)).toEqual(['tenant-b']);
  });

  it('a batch with one bad vector is refused whole (nothing stored)', () => {
    const db = new InMemoryVectorDatabase(2);
    expect(() => db.upsert([{ id: 'ok', partition: 'p', vector: v(1, 0) }, { id: 'bad', partition: 'p', vector: v(1, 0, 0) }])).toThrow(VectorDimensionError);
    expect(db.count()).toBe(0);
  });

  it.each([0, -3, 2.5])('refuses dimension %s', (dim) => {
    expect(() => new InMemoryVectorDatabase(dim)).toThrow(RangeError);
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

describe('InMemoryVectorDatabase is exact: the same top-k as brute-force float32 cosine', () => {
  // The reference: every live row scored by the plain float32 loop, best first, ties by id.
  function bruteForce(rows: Map<string, Float32Array>, q: Float32Array, k: number): VectorHit[] {
    const one = new Float32Array(1);
    return [...rows.entries()]
      .map(([id, v]) => {
        dotsJs(v, v.length, 1, q, one);
        return { id, score: one[0]! };
      })
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
      .slice(0, k);
  }

  // Default layout; float32 rows spilled to a file at 256 rows with int8 rows over memories of 97 rows
  // (at 512 dims); and resident float32 and int8 rows both over memories of 97 rows (at 512 dims).
  const layouts: [string, InMemoryVectorDatabaseOptions][] = [
    ['resident', {}],
    ['spilled', { spillRows: 256, chunkBytes: 97 * 512 }],
    ['resident over memories', { chunkBytes: 97 * 512 }],
  ];
  it.each(layouts)('property (%s): random partitions with duplicates, ties, near-ties, clusters, deletes and swap-removes, at 384 and 512 dims', (_, options) => {
    fc.assert(
      fc.property(
        fc.record({
          dim: fc.constantFrom(384, 512, 20),
          rows: fc.integer({ min: 0, max: 900 }),
          seed: fc.integer({ min: 0, max: 2 ** 31 }),
          // Share of rows that copy an earlier row exactly (score ties) or nearly (near-ties).
          dupShare: fc.double({ min: 0, max: 0.9, noNaN: true }),
          // How tightly rows gather around a few centres (paraphrase-like clusters), 0 = uniform.
          cluster: fc.constantFrom(0, 0.05, 0.3),
          deleteShare: fc.double({ min: 0, max: 0.6, noNaN: true }),
          k: fc.integer({ min: 1, max: 12 }),
        }),
        ({ dim, rows, seed, dupShare, cluster, deleteShare, k }) => {
          let s = seed;
          const rand = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
          const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
          const centres = Array.from({ length: 3 }, () => Float32Array.from({ length: dim }, gauss));
          const fresh = () => {
            if (cluster === 0) return l2Normalize(Float32Array.from({ length: dim }, gauss));
            const c = centres[Math.floor(rand() * centres.length)]!;
            return l2Normalize(Float32Array.from(c, (x) => x + cluster * gauss()));
          };
          const db = new InMemoryVectorDatabase(dim, options);
          const live = new Map<string, Float32Array>();
          const ids: string[] = [];
          for (let i = 0; i < rows; i++) {
            const id = `r${Math.floor(rand() * 1e6)}-${i}`;
            let v = fresh();
            if (ids.length > 0 && rand() < dupShare) {
              const src = live.get(ids[Math.floor(rand() * ids.length)]!);
              if (src) v = rand() < 0.5 ? Float32Array.from(src) : l2Normalize(Float32Array.from(src, (x) => x + 1e-4 * gauss()));
            }
            db.upsert([{ id, partition: 'p', vector: v }]);
            live.set(id, v);
            ids.push(id);
            // Interleave deletes so swap-removes happen before and after the partition is promoted.
            if (rand() < deleteShare / 2) {
              const gone = ids[Math.floor(rand() * ids.length)]!;
              db.delete([gone]);
              live.delete(gone);
            }
          }
          for (const id of ids) {
            if (rand() < deleteShare / 2 && db.delete([id]) === 1) live.delete(id);
          }
          // Some rows replaced in place (same id, new vector).
          for (const id of [...live.keys()].slice(0, 5)) {
            const v = fresh();
            db.upsert([{ id, partition: 'p', vector: v }]);
            live.set(id, v);
          }
          const stored = [...live.values()];
          const queries = [fresh(), fresh(), ...(stored.length > 0 ? [stored[Math.floor(rand() * stored.length)]!] : [])];
          for (const q of queries) expect(db.query('p', q, k)).toEqual(bruteForce(live, q, k));
          expect(db.count()).toBe(live.size);
          db.close();
        },
      ),
      { numRuns: 60 },
    );
  });

  it('stays exact when every row scores the same (no row can be pruned)', () => {
    const dim = 384;
    const v = l2Normalize(Float32Array.from({ length: dim }, (_, i) => Math.sin(i + 1)));
    const db = new InMemoryVectorDatabase(dim);
    const live = new Map<string, Float32Array>();
    for (let i = 0; i < 600; i++) {
      db.upsert([{ id: `id${(i * 7919) % 600}`, partition: 'p', vector: v }]);
      live.set(`id${(i * 7919) % 600}`, v);
    }
    const q = l2Normalize(Float32Array.from({ length: dim }, (_, i) => Math.cos(i)));
    expect(db.query('p', q, 5)).toEqual(bruteForce(live, q, 5));
  });

  it('refuses a stored or query vector with a NaN or infinite component', () => {
    const db = new InMemoryVectorDatabase(2);
    expect(() => db.upsert([{ id: 'x', partition: 'p', vector: Float32Array.of(NaN, 1) }])).toThrow(RangeError);
    expect(() => db.upsert([{ id: 'x', partition: 'p', vector: Float32Array.of(Infinity, 1) }])).toThrow(RangeError);
    expect(db.count()).toBe(0);
    expect(() => db.query('p', Float32Array.of(NaN, 1), 1)).toThrow(RangeError);
  });
});

describe('InMemoryVectorDatabase past spillRows', () => {
  it('keeps only int8 copies resident, answers exactly from the spilled rows, and stays exact when no row can be pruned', () => {
    const dim = 384;
    let seed = 11;
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32) * 2 - 1;
    const resident = new InMemoryVectorDatabase(dim);
    const spilled = new InMemoryVectorDatabase(dim, { spillRows: 256 });
    const same = l2Normalize(Float32Array.from({ length: dim }, rand));
    for (let i = 0; i < 1_200; i++) {
      const rec = { id: `e${i}`, partition: 'p', vector: i % 4 === 0 ? same : l2Normalize(Float32Array.from({ length: dim }, rand)) };
      resident.upsert([rec]);
      spilled.upsert([rec]);
    }
    // Float32 rows (1,536 bytes each at 384 dims) are gone from memory; the int8 copy and norms are not.
    expect(spilled.residentBytes() / 1_200).toBeLessThan(600);
    expect(resident.residentBytes() / 1_200).toBeGreaterThan(1_536);
    const q = l2Normalize(Float32Array.from({ length: dim }, rand));
    expect(spilled.query('p', q, 10)).toEqual(resident.query('p', q, 10));
    // 300 rows tie with the query itself: every one is a candidate, so the whole file is scanned.
    expect(spilled.query('p', same, 5)).toEqual(resident.query('p', same, 5));
    spilled.delete(['e0', 'e1', 'e5']);
    resident.delete(['e0', 'e1', 'e5']);
    expect(spilled.query('p', same, 5)).toEqual(resident.query('p', same, 5));
    spilled.close();
    expect(spilled.count()).toBe(0);
  });

  it('refuses a spill threshold below the int8 threshold', () => {
    expect(() => new InMemoryVectorDatabase(4, { spillRows: 10 })).toThrow(/spillRows must be a whole number >= 256/);
  });
});
