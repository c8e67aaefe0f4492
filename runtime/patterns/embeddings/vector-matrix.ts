// Contiguous row-major store of normalised vectors for v2 K-NN (harness §12: p95 ≤ 5 ms at 20k × 384).

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
    const m = data;
    for (let r = 0, off = 0; r < ids.length; r++, off += dim) {
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      let i = 0;
      // Four accumulators let V8 overlap the multiply-adds.
      for (; i + 3 < dim; i += 4) {
        s0 += m[off + i]! * q[i]!;
        s1 += m[off + i + 1]! * q[i + 1]!;
        s2 += m[off + i + 2]! * q[i + 2]!;
        s3 += m[off + i + 3]! * q[i + 3]!;
      }
      for (; i < dim; i++) s0 += m[off + i]! * q[i]!;
      out[r] = s0 + s1 + s2 + s3;
    }
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
