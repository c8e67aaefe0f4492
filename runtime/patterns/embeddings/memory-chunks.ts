// Rows spread over several WebAssembly memories (one memory addresses at most 4 GiB): chunk i holds rows
// [i * perChunk, (i + 1) * perChunk). Shared by the float32 rows and the int8 rows, which differ only in
// what a chunk holds and how it is sized.

/** What every chunk has: how many rows it holds room for. */
export interface RowChunk {
  capacity: number;
}

/**
 * Grows `chunks` until together they hold `cap` rows: each chunk filled to `perChunk` rows before the next
 * begins, a missing chunk made by `make`, a chunk with too little room resized by `size` (to at least `rows`).
 */
export function growChunks<C extends RowChunk>(chunks: C[], cap: number, perChunk: number, make: () => C, size: (chunk: C, rows: number) => void): void {
  let left = cap;
  for (let i = 0; left > 0; i++, left -= perChunk) {
    const rows = Math.min(left, perChunk);
    let c = chunks[i];
    if (!c) {
      c = make();
      chunks.push(c);
    }
    if (c.capacity < rows) size(c, rows);
  }
}
