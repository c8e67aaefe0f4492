// Types of same-names.mjs for the TypeScript that imports it (tests).

/** `code` with keepNames' calls that give a declared function its own name blanked (same length), and how many. */
export function blankSameNameCalls(code: string): { code: string; blanked: number };
