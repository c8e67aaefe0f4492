// Types of sqlite-binary-call.mjs for the TypeScript that imports it (tests).

/**
 * JavaScript for an expression that loads `binary` of the package in `root` from the first of bindings' places
 * that exists, up to the one that holds it at build time, and through bindings when none does.
 */
export function sqliteBinaryCall(root: string, binary: string, rootExpression: string): string;
