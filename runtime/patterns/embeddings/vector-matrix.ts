// Contiguous row-major store of normalised vectors, the plain-JS reference the v2 perf script measures
// the store's K-NN against (harness §12: p95 ≤ 5 ms at 20k × 384).
import { dotsJs } from './simd-dots.ts';

/** A growable matrix of same-dim vectors keyed by id; `scores` is one pass of dot products. */
export interface VectorMatrix {
  readonly dim: number;
  readonly size: number;
  put(id: string, v: Float32Array): void;
  get(id: string): Float32Array | null;
  /** Dot product of `q` with every row, by row id. */
  scores(q: Float32Array): Map<string, number>;
  /** The k ids with the highest dot product, best first (ties by id). */
  topK(q: Float32Array, k: number): Array<{ id: string; score: number }>;
}

/** Creates an empty matrix of `dim`-length rows. */
export function createVectorMatrix(dim: number): VectorMatrix {
  let data = new Float32Array(dim * 64);
  const ids: string[] = [];
  const rowOf = new Map<string, number>();
  function dots(q: Float32Array): Float32Array {
    const out = new Float32Array(ids.length);
    dotsJs(data, dim, ids.length, q, out);
    return out;
  }
  return {
    dim,
    get size() {
      return ids.length;
    },
    put(id, v) {
      if (v.length !== dim) throw new RangeError(`vector dim ${v.length} != ${dim}`);
      let row = rowOf.get(id);
      if (row === undefined) {
        row = ids.length;
        if ((row + 1) * dim > data.length) {
          const grown = new Float32Array(data.length * 2);
          grown.set(data);
          data = grown;
        }
        ids.push(id);
        rowOf.set(id, row);
      }
      data.set(v, row * dim);
    },
    get(id) {
      const row = rowOf.get(id);
      return row === undefined ? null : data.slice(row * dim, (row + 1) * dim);
    },
    scores(q) {
      const d = dots(q);
      const m = new Map<string, number>();
      for (let r = 0; r < ids.length; r++) m.set(ids[r]!, d[r]!);
      return m;
    },
    topK(q, k) {
      const d = dots(q);
      // Bounded insertion keeps top-K O(n·k) instead of sorting all n rows.
      const best: number[] = [];
      const better = (a: number, b: number) => d[a]! > d[b]! || (d[a] === d[b] && ids[a]! < ids[b]!);
      for (let r = 0; r < ids.length; r++) {
        if (best.length === k && !better(r, best[k - 1]!)) continue;
        let i = best.length < k ? best.length : k - 1;
        while (i > 0 && better(r, best[i - 1]!)) {
          best[i] = best[i - 1]!;
          i--;
        }
        best[i] = r;
      }
      return best.map((r) => ({ id: ids[r]!, score: d[r]! }));
    },
  };
}
