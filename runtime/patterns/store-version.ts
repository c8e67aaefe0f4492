import type { PatternStore } from './pattern-store.ts';
import type { PatternStoreV2 } from './v2-pattern-store.ts';

/** True for a store opened with `fingerprintVersion: 'v2'` (pattern-store.md §16): it embeds, caches and blends. */
export function isPatternStoreV2(store: PatternStore): store is PatternStoreV2 {
  return (store as Partial<PatternStoreV2>).fingerprintVersion === 'v2';
}
