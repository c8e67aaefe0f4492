import type { SandboxMode } from './run-command.ts';

const MODES: readonly SandboxMode[] = ['auto', 'bwrap', 'unshare', 'none'];

/** The environment variable the CLI edge reads to force a sandbox mode (tests use `unshare` or `none` to exercise the tiers below bwrap). */
export const SANDBOX_ENV_VAR = 'METIS_SANDBOX';

/**
 * Parses a sandbox mode given by a user (`METIS_SANDBOX` or a flag); undefined or empty means
 * `auto`. Throws a RangeError naming the source and the accepted values otherwise.
 */
export function parseSandboxMode(value: string | undefined, source = SANDBOX_ENV_VAR): SandboxMode {
  if (value === undefined || value === '') return 'auto';
  if ((MODES as readonly string[]).includes(value)) return value as SandboxMode;
  throw new RangeError(`${source}=${JSON.stringify(value)} is not a sandbox mode; use one of ${MODES.join(', ')}`);
}
