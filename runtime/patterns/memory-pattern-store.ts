// A pattern store whose rows live in memory for the life of the process: the SQLite store's policy
// (writes, caps, eviction, events, the K-NN mirror, v2's blended search and embedding cache) over
// memory-pattern-tables.ts instead of a file. For scratch stores filled and thrown away in one run (a
// matrix cross-fit's per-fold stores), where a file's statements were most of the seeding's cost.
import { createMemoryEmbeddingCache } from './embeddings/memory-embedding-cache.ts';
import { assertEmbeddingProvider } from './embeddings/embedding-provider.ts';
import { createMemoryPatternTables, type MemoryPatternTables } from './memory-pattern-tables.ts';
import type { PatternStore } from './pattern-store.ts';
import { openStructuralStore, type PatternStoreOptions, type PatternTablesBackend } from './sqlite-pattern-store.ts';
import { wrapPatternStoreV2, type PatternStoreV2 } from './v2-pattern-store.ts';

/** Options of `openMemoryPatternStore`: those of `openPatternStore` but the file's (busyTimeoutMs). */
export type MemoryPatternStoreOptions = Omit<PatternStoreOptions, 'busyTimeoutMs'>;

/** Tables created on the store's first write, as a file is; `label` names them in warnings. */
function memoryTables(label: string): PatternTablesBackend<MemoryPatternTables> {
  let tables: MemoryPatternTables | null = null;
  return {
    path: label,
    exists: () => tables !== null,
    open: () => (tables ??= createMemoryPatternTables(label)),
    embeddingCache: (t, clock, limits) => createMemoryEmbeddingCache(clock, limits, (undo) => t.journal(undo)),
  };
}

/** Opens an empty in-memory store answering what `openPatternStore` on a fresh file answers to the same calls. */
export function openMemoryPatternStore(label: string, options: MemoryPatternStoreOptions & { fingerprintVersion: 'v2' }): PatternStoreV2;
export function openMemoryPatternStore(label: string, options: MemoryPatternStoreOptions): PatternStore;
export function openMemoryPatternStore(label: string, options: MemoryPatternStoreOptions): PatternStore | PatternStoreV2 {
  if (options.fingerprintVersion === 'v2') {
    if (!options.embeddingProvider) throw new Error('pattern store: fingerprint_version v2 needs an embedding provider (--embedding-provider)');
    assertEmbeddingProvider(options.embeddingProvider);
    const { provider_id, dim } = options.embeddingProvider;
    const { store, hybrid } = openStructuralStore(memoryTables(label), options, { provider_id, dim });
    return wrapPatternStoreV2(store, hybrid, options.embeddingProvider, options.embedding);
  }
  return openStructuralStore(memoryTables(label), options, null).store;
}
