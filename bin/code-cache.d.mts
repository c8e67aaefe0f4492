// Types of code-cache.mjs for the TypeScript that imports it (tests).

/** Suffix of the code cache file beside a bundle. */
export const CODE_CACHE_SUFFIX: string;

/** True when this Node lets a vm.Script's `import()` use the main loader (Node 20.12+) and source maps are off. */
export function canRunWithCodeCache(): boolean;

/** Runs the CommonJS file at `file` as `require(file)` would, with the code cache beside it when made from this source. */
export function runWithCodeCache(file: string): { exports: unknown; cache: 'used' | 'none' | 'rejected'; saveCache(): void };
