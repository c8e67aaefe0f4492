/** Exponential backoff bounds: the first retry waits up to `baseMs`, each next one doubles, never past `capMs`. */
export interface BackoffOptions {
  baseMs: number;
  capMs: number;
}

/** Defaults for real providers: up to 1 s, 2 s, 4 s, 8 s... capped at 30 s. */
export const DEFAULT_BACKOFF: BackoffOptions = Object.freeze({ baseMs: 1000, capMs: 30_000 });

/**
 * Full-jitter exponential backoff: a uniform draw in [0, min(cap, base·2^attempt)], in whole ms.
 * `attempt` is 0 for the first retry. Jitter spreads clients that failed together so they do not
 * retry together; `random` (in [0, 1)) is passed in so tests can pin it.
 */
export function backoff(attempt: number, options: BackoffOptions, random: () => number): number {
  if (!Number.isInteger(attempt) || attempt < 0) throw new RangeError(`backoff attempt must be a non-negative integer, got ${attempt}`);
  const ceiling = Math.min(options.capMs, options.baseMs * 2 ** attempt);
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.floor(r * ceiling);
}
