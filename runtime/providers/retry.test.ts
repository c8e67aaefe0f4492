import { describe, expect, it } from 'vitest';
import { createVirtualClock } from '../core/clock.ts';
import { ProviderError } from './provider.ts';
import { MAX_RETRY_AFTER_MS, resolveRetryPolicy, retryAfterMs, withRetries, type RetryNotice, type Sleep } from './retry.ts';

const NOW_MS = 1_767_225_600_000;
const headers = (h: Record<string, string>) => new Headers(h);
const ctx = { provider: 'test', keyVariable: 'TEST_API_KEY', secrets: ['secret-value-123'] };

/** An SDK-like HTTP error. */
const httpError = (status: number, h: Record<string, string> = {}) => Object.assign(new Error(`${status} failure`), { status, headers: headers(h) });

describe('retryAfterMs', () => {
  it.each([
    [{ 'retry-after': '2' }, 2000],
    [{ 'retry-after': '0.5' }, 500],
    [{ 'retry-after-ms': '1500' }, 1500],
    [{ 'retry-after-ms': '250', 'retry-after': '9' }, 250],
    [{ 'retry-after': new Date(NOW_MS + 3000).toUTCString() }, 3000],
    [{ 'retry-after': new Date(NOW_MS - 3000).toUTCString() }, 0],
    [{ 'retry-after': '3600' }, MAX_RETRY_AFTER_MS],
  ])('%j → %d ms', (h, ms) => {
    expect(retryAfterMs(headers(h), NOW_MS)).toBe(ms);
  });

  it('is undefined when absent or unreadable', () => {
    expect(retryAfterMs(undefined, NOW_MS)).toBeUndefined();
    expect(retryAfterMs(headers({}), NOW_MS)).toBeUndefined();
    expect(retryAfterMs(headers({ 'retry-after': 'soon' }), NOW_MS)).toBeUndefined();
  });
});

describe('withRetries', () => {
  const policy = (sleeps: number[], maxRetries = 3) =>
    resolveRetryPolicy(
      {
        maxRetries,
        random: () => 0.5,
        sleep: async (ms) => void sleeps.push(ms),
      },
      createVirtualClock(NOW_MS * 1000),
    );

  it('returns the first success and sleeps between retryable failures', async () => {
    const sleeps: number[] = [];
    const failures = [httpError(503), httpError(429, { 'retry-after': '1' })];
    const result = await withRetries(async () => {
      const f = failures.shift();
      if (f) throw f;
      return 'ok';
    }, policy(sleeps), ctx);
    expect(result).toBe('ok');
    expect(sleeps).toEqual([500, 1000]);
  });

  it('throws a non-retryable failure at once as a ProviderError with retryCount 0', async () => {
    const sleeps: number[] = [];
    let calls = 0;
    const error = await withRetries(async () => {
      calls++;
      throw httpError(400);
    }, policy(sleeps), ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ errorClass: 'invalid_request', retryCount: 0 });
    expect(calls).toBe(1);
    expect(sleeps).toEqual([]);
  });

  it('reports the retries made when it gives up', async () => {
    const sleeps: number[] = [];
    const error = await withRetries(async () => {
      throw httpError(500);
    }, policy(sleeps, 2), ctx).catch((e: unknown) => e);
    expect(error).toMatchObject({ errorClass: 'server_error', retryCount: 2 });
    expect(sleeps).toHaveLength(2);
  });

  it('turns an abort during the wait into cancelled', async () => {
    const controller = new AbortController();
    const sleep: Sleep = async () => {
      controller.abort();
      throw new Error('aborted');
    };
    const p = resolveRetryPolicy({ sleep }, createVirtualClock());
    const error = await withRetries(async () => {
      throw httpError(500);
    }, p, ctx, controller.signal).catch((e: unknown) => e);
    expect(error).toMatchObject({ errorClass: 'cancelled', retryCount: 0 });
  });

  it('tells a listener of each retry before its wait: the failure classified and redacted, which retry, the wait', async () => {
    const sleeps: number[] = [];
    const notices: RetryNotice[] = [];
    const p = { ...policy(sleeps, 2), onRetry: (n: RetryNotice) => void notices.push(n) };
    const error = await withRetries(async () => {
      throw Object.assign(httpError(503), { message: '503 overloaded for key secret-value-123' });
    }, p, ctx).catch((e: unknown) => e);
    expect(error).toMatchObject({ errorClass: 'server_error', retryCount: 2 });
    expect(notices.map((n) => [n.retry, n.maxRetries, n.waitMs, n.error.errorClass])).toEqual([
      [1, 2, sleeps[0], 'server_error'],
      [2, 2, sleeps[1], 'server_error'],
    ]);
    expect(notices.map((n) => n.error.message).join(' ')).not.toContain('secret-value-123');
    // No retry follows the last failure, nor a non-retryable one: nothing to tell.
    notices.length = 0;
    await withRetries(async () => {
      throw httpError(400);
    }, p, ctx).catch(() => undefined);
    expect(notices).toEqual([]);
  });

  it('a listener that throws changes nothing about the call', async () => {
    const failures = [httpError(503)];
    const p = {
      ...policy([]),
      onRetry: () => {
        throw new Error('listener broke');
      },
    };
    const result = await withRetries(async () => {
      const f = failures.shift();
      if (f) throw f;
      return 'ok';
    }, p, ctx);
    expect(result).toBe('ok');
  });

  it('rejects a negative maxRetries', () => {
    expect(() => resolveRetryPolicy({ maxRetries: -1 }, createVirtualClock())).toThrow(RangeError);
  });
});
