// Types of launch.cjs for the TypeScript that imports it (perf scripts, tests).

/** The environment variable naming the folder the CLI may keep derived indexes in (set to dist/ while it is fresh). */
export const CACHE_DIR_ENV: string;

/** Name of the file in dist/ that records which source files (size, mtime) the build read. */
export const STAMP_FILE: string;

/** Suffix of the stamp beside a one-command bundle in dist/ (`analyze.cjs.stamp.json`): its inputs as [path, size, mtimeMs]. */
export const BUNDLE_STAMP_SUFFIX: string;

/**
 * True when `distDir` holds a finished build whose every input still has the size and mtime the build saw;
 * given `bundle` (`analyze.cjs`), the inputs of that one-command bundle only, from its own stamp.
 */
export function distIsFresh(distDir: URL, rootDir: URL, bundle?: string | null): boolean;

/**
 * The CLI's `main`, from dist/ when it is fresh, else from harness/cli/main.ts through tsx; for a process that
 * runs one `command` only, from that command's CommonJS bundle dist/COMMAND.cjs when the build made one.
 */
export function loadMain(env?: Record<string, string | undefined>, command?: string | null): Promise<{ main(argv: string[]): Promise<number> }>;

/**
 * Ends the process with `code` at once when nothing is left to do (nothing unwritten on stdout or stderr, no
 * 'beforeExit' listener, nothing but the standard streams keeping the loop alive); else sets process.exitCode.
 */
export function exitWhenIdle(code: number): void;
