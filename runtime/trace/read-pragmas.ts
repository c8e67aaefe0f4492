// How a read-only connection reads a trace DB's pages, chosen by the file's size: what pays depends on
// whether the open reads every page (the integrity scan of a small DB) or a run's few scattered ones.
import { QUICK_CHECK_MAX_BYTES } from './check-trace-db.ts';

/** How much of a small trace DB a reader maps into memory (bytes); SQLite caps it at its compile-time limit. */
export const TRACE_DB_MMAP_BYTES = 2 ** 31;

/** Page cache (pages) of a reader of a large trace DB: SQLite's default is 16 MB. */
export const TRACE_DB_CACHE_PAGES = 100;

/**
 * The pragmas a read-only connection to a trace DB of `bytes` runs before its first read. Up to
 * QUICK_CHECK_MAX_BYTES the open scans every page, which a memory map reads without a read() call each; above
 * it a report reads one run's pages scattered over the file, and a small cache whose pages are reused makes
 * fewer page faults than a map (a fault per page touched) or the default cache (a new page per page read).
 */
export function traceReadPragmas(bytes: number): string[] {
  return bytes <= QUICK_CHECK_MAX_BYTES ? [`mmap_size = ${TRACE_DB_MMAP_BYTES}`] : [`cache_size = ${TRACE_DB_CACHE_PAGES}`];
}
