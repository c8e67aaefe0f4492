// Our single retry policy for real providers; the SDKs' own retries are switched off (maxRetries: 0).
import type { Clock } from '../core/clock.ts';
import { backoff, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.ts';
import { classifyError, RETRYABLE_CLASSES, toProviderError, type ProviderErrorContext } from './errors.ts';
import { ProviderError } from './provider.ts';

/** Waits `ms`; rejects when `signal` aborts. Injected so tests observe the waits instead of sleeping. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** A real timer that stops early, rejecting, when the signal aborts. */
export const timerSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** The longest server-requested wait we honour: a longer `retry-after` waits this long. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Header lookup as both SDKs' errors expose it (a fetch `Headers`). */
export interface HeaderLookup {
  get(name: string): string | null;
}

/**
 * The wait a server asked for: `retry-after-ms` (milliseconds), else `retry-after` as seconds or
 * an HTTP date (relative to `nowMs`), capped at `capMs`; undefined when absent or unreadable.
 */
export function retryAfterMs(headers: HeaderLookup | undefined, nowMs: number, capMs = MAX_RETRY_AFTER_MS): number | undefined {
  if (!headers) return undefined;
  const cap = (ms: number): number => Math.min(Math.max(Math.round(ms), 0), capMs);
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return cap(Number(ms));
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return cap(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : cap(date - nowMs);
}

/** The knobs an adapter factory exposes; every one defaults. */
export interface RetryOptions {
  /** Retries after the first attempt for rate_limit, server_error and network failures. Default 4. */
  maxRetries?: number;
  /** Default: a real timer. */
  sleep?: Sleep;
  /** Jitter source in [0, 1). Default Math.random: jitter never changes a result, only when a retry happens. */
  random?: () => number;
  backoff?: BackoffOptions;
  /** Told of each retry before its wait, so a caller can show that a call failed and is tried again. */
  onRetry?: (notice: RetryNotice) => void;
}

/** A retry about to happen: the failure it follows (classified and redacted), which retry it is, and the wait before it. */
export interface RetryNotice {
  error: ProviderError;
  /** 1 for the first retry (the second attempt). */
  retry: number;
  maxRetries: number;
  waitMs: number;
}

/** A fully resolved retry policy. */
export interface RetryPolicy {
  maxRetries: number;
  sleep: Sleep;
  random: () => number;
  backoff: BackoffOptions;
  /** Wall time in ms, for `retry-after` HTTP dates. */
  nowMs: () => number;
  onRetry: ((notice: RetryNotice) => void) | null;
}

/** Fills the defaults of a RetryPolicy; the adapter factories are the edge where they are chosen. */
export function resolveRetryPolicy(options: RetryOptions, clock: Clock): RetryPolicy {
  const maxRetries = options.maxRetries ?? 4;
  if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new RangeError(`maxRetries must be a non-negative integer, got ${maxRetries}`);
  return {
    maxRetries,
    sleep: options.sleep ?? timerSleep,
    random: options.random ?? Math.random,
    backoff: options.backoff ?? DEFAULT_BACKOFF,
    nowMs: () => clock.nowUs() / 1000,
    onRetry: options.onRetry ?? null,
  };
}

function headersOf(e: unknown): HeaderLookup | undefined {
  const h = typeof e === 'object' && e !== null ? (e as { headers?: unknown }).headers : undefined;
  return typeof h === 'object' && h !== null && typeof (h as HeaderLookup).get === 'function' ? (h as HeaderLookup) : undefined;
}

/**
 * Runs `call`, retrying retryable failures up to `policy.maxRetries` times: each wait is the
 * server's `retry-after` when it sent one, else full-jitter backoff. The final failure, or any
 * failure that is not retryable, is thrown as a ProviderError carrying the retries made.
 */
export async function withRetries<T>(call: () => Promise<T>, policy: RetryPolicy, ctx: ProviderErrorContext, signal?: AbortSignal): Promise<T> {
  for (let retries = 0; ; retries++) {
    if (signal?.aborted) throw new ProviderError(`${ctx.provider}: request cancelled`, 'cancelled', retries);
    try {
      return await call();
    } catch (e) {
      if (!RETRYABLE_CLASSES.has(classifyError(e)) || retries >= policy.maxRetries) throw toProviderError(e, ctx, retries);
      const wait = retryAfterMs(headersOf(e), policy.nowMs()) ?? backoff(retries, policy.backoff, policy.random);
      tell(policy, () => ({ error: toProviderError(e, ctx, retries), retry: retries + 1, maxRetries: policy.maxRetries, waitMs: wait }));
      try {
        await policy.sleep(wait, signal);
      } catch {
        throw new ProviderError(`${ctx.provider}: request cancelled while waiting to retry`, 'cancelled', retries);
      }
    }
  }
}

/** Hands a notice to the policy's listener; a listener that throws changes nothing about the call. */
function tell(policy: RetryPolicy, notice: () => RetryNotice): void {
  if (!policy.onRetry) return;
  try {
    policy.onRetry(notice());
  } catch {
    // Showing a retry is a courtesy; the call goes on either way.
  }
}
