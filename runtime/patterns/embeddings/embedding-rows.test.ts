import { describe, expect, it } from 'vitest';
import { createEmbeddingRows } from './embedding-rows.ts';

describe('embedding rows', () => {
  it('grow to what is asked past 2^21 rows of 384 floats (doubling to 2^22 overflowed one 4 GiB memory)', () => {
    const rows = createEmbeddingRows(384, 64);
    // Reserving maps memory the OS commits only when touched: one row is written here.
    rows.reserve(2_200_000);
    const v = Float32Array.from({ length: 384 }, (_, i) => i / 384);
    rows.set(2_199_999, v);
    expect(rows.get(2_199_999)).toEqual(v);
    expect(rows.maxRows).toBeGreaterThan(2_780_000);
  });

  it('refuse more rows than one memory holds, naming the limit and what to use instead', () => {
    const rows = createEmbeddingRows(384, 64);
    expect(() => rows.reserve(rows.maxRows + 1)).toThrow(/at most \d+ slots in one WebAssembly memory.*InMemoryVectorDatabase/);
  });
});
