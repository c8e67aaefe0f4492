// Types of lazy-builtins.mjs for the TypeScript that imports it (tests).
import type { Plugin } from 'esbuild';

/** An esbuild plugin that makes each builtin named load at the first read of one of its exports, not with the bundle. */
export function lazyBuiltins(names: string[]): Plugin;
