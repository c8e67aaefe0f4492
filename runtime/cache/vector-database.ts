// The Tier 2 index (semantic-cache-phase2.md §6): a backend-agnostic interface and the default, exact
// in-process search per partition. An external engine can implement the same interface at scale.
import { dotsJs } from '../patterns/embeddings/simd-dots.ts';

export interface VectorRecord {
  id: string;
  partition: string;
  vector: Float32Array;
}

export interface VectorHit {
  id: string;
  /** Cosine similarity (vectors are L2-normalised). */
  score: number;
}

export interface VectorDatabase {
  readonly dim: number;
  upsert(records: readonly VectorRecord[]): number;
  /** The `topK` nearest in `partition`, best first; ties by id. */
  query(partition: string, vector: Float32Array, topK: number): VectorHit[];
  delete(ids: readonly string[]): number;
  count(): number;
}

export class VectorDimensionError extends Error {
  constructor(expected: number, actual: number) {
    super(`vector has ${actual} dimensions, the index holds ${expected}: embed with the index's embedder or open a new cache`);
    this.name = 'VectorDimensionError';
  }
}

/** One partition: rows back to back, swap-remove on delete. */
class PartitionMatrix {
  data: Float32Array;
  readonly ids: string[] = [];
  constructor(private readonly dim: number) {
    this.data = new Float32Array(dim * 16);
  }
  put(row: number | undefined, id: string, v: Float32Array): number {
    if (row === undefined) {
      row = this.ids.length;
      if ((row + 1) * this.dim > this.data.length) {
        const grown = new Float32Array(this.data.length * 2);
        grown.set(this.data);
        this.data = grown;
      }
      this.ids.push(id);
    }
    this.data.set(v, row * this.dim);
    return row;
  }
  /** Removes `row`; returns the id that moved into it, if any. */
  remove(row: number): string | undefined {
    const last = this.ids.length - 1;
    if (row !== last) {
      this.data.copyWithin(row * this.dim, last * this.dim, (last + 1) * this.dim);
      this.ids[row] = this.ids[last]!;
    }
    this.ids.pop();
    return row !== last ? this.ids[row] : undefined;
  }
}

/** Exact brute-force cosine search, one matrix per partition. */
export class InMemoryVectorDatabase implements VectorDatabase {
  private readonly partitions = new Map<string, PartitionMatrix>();
  private readonly where = new Map<string, { partition: string; row: number }>();
  private scratch = new Float32Array(1024);

  constructor(readonly dim: number) {
    if (!Number.isInteger(dim) || dim <= 0) throw new RangeError(`dim must be a whole number > 0, got ${dim}`);
  }

  upsert(records: readonly VectorRecord[]): number {
    for (const r of records) {
      if (r.vector.length !== this.dim) throw new VectorDimensionError(this.dim, r.vector.length);
      const at = this.where.get(r.id);
      if (at && at.partition !== r.partition) this.delete([r.id]);
      let m = this.partitions.get(r.partition);
      if (!m) this.partitions.set(r.partition, (m = new PartitionMatrix(this.dim)));
      const row = m.put(at && at.partition === r.partition ? at.row : undefined, r.id, r.vector);
      this.where.set(r.id, { partition: r.partition, row });
    }
    return records.length;
  }

  query(partition: string, vector: Float32Array, topK: number): VectorHit[] {
    if (vector.length !== this.dim) throw new VectorDimensionError(this.dim, vector.length);
    if (!Number.isInteger(topK) || topK < 1) throw new RangeError(`topK must be a whole number >= 1, got ${topK}`);
    const m = this.partitions.get(partition);
    if (!m || m.ids.length === 0) return [];
    const n = m.ids.length;
    if (this.scratch.length < n) this.scratch = new Float32Array(Math.max(n, this.scratch.length * 2));
    const d = this.scratch;
    dotsJs(m.data, this.dim, n, vector, d);
    const best: number[] = [];
    const better = (a: number, b: number) => d[a]! > d[b]! || (d[a] === d[b] && m.ids[a]! < m.ids[b]!);
    for (let r = 0; r < n; r++) {
      if (best.length === topK && !better(r, best[topK - 1]!)) continue;
      let i = best.length < topK ? best.length : topK - 1;
      while (i > 0 && better(r, best[i - 1]!)) {
        best[i] = best[i - 1]!;
        i--;
      }
      best[i] = r;
    }
    return best.map((r) => ({ id: m.ids[r]!, score: d[r]! }));
  }

  delete(ids: readonly string[]): number {
    let removed = 0;
    for (const id of ids) {
      const at = this.where.get(id);
      if (!at) continue;
      const m = this.partitions.get(at.partition)!;
      const moved = m.remove(at.row);
      if (moved !== undefined) this.where.set(moved, { partition: at.partition, row: at.row });
      this.where.delete(id);
      if (m.ids.length === 0) this.partitions.delete(at.partition);
      removed++;
    }
    return removed;
  }

  count(): number {
    return this.where.size;
  }
}
