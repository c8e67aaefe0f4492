// Types of code-cache.cjs for the TypeScript that imports it (tests).

/** Suffix of the code cache file beside a bundle. */
export const CODE_CACHE_SUFFIX: string;

/** False under --enable-source-maps (Node maps the modules it loads, not a vm.Script). */
export function canRunWithCodeCache(): boolean;

/** Runs the CommonJS file at `file` as `require(file)` would, with the code cache beside it when made from this source. */
export function runWithCodeCache(file: string): { exports: unknown; cache: 'used' | 'none' | 'rejected'; saveCache(): void };
