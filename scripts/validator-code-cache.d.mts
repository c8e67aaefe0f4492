// Types of validator-code-cache.mjs for the TypeScript that imports it (tests).

/** Instances of `schema` that between them hold every property, item and branch its validator checks. */
export function schemaSamples(schema: unknown): unknown[];
