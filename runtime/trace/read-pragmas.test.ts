import { describe, expect, it } from 'vitest';
import { QUICK_CHECK_MAX_BYTES } from './check-trace-db.ts';
import { TRACE_DB_CACHE_PAGES, TRACE_DB_MMAP_BYTES, traceReadPragmas } from './read-pragmas.ts';

describe('traceReadPragmas', () => {
  it('maps a DB whose every page the open scans', () => {
    expect(traceReadPragmas(0)).toEqual([`mmap_size = ${TRACE_DB_MMAP_BYTES}`]);
    expect(traceReadPragmas(QUICK_CHECK_MAX_BYTES)).toEqual([`mmap_size = ${TRACE_DB_MMAP_BYTES}`]);
  });

  it('reads a larger DB through a small page cache, without a map', () => {
    expect(traceReadPragmas(QUICK_CHECK_MAX_BYTES + 1)).toEqual([`cache_size = ${TRACE_DB_CACHE_PAGES}`]);
    expect(traceReadPragmas(2 ** 40)).toEqual([`cache_size = ${TRACE_DB_CACHE_PAGES}`]);
  });
});
