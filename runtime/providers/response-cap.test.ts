import { describe, expect, it } from 'vitest';
import { classifyError } from './errors.ts';
import { cappedFetch, ResponseTooLargeError, responseTooLargeIn, type FetchLike } from './response-cap.ts';

/** A fetch that answers `body` in 1 KiB chunks, with or without a declared length. */
function fakeFetch(bytes: number, declare: boolean): FetchLike & { pulled: () => number } {
  let pulled = 0;
  const f = async () => {
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= bytes) return controller.close();
        const n = Math.min(1024, bytes - sent);
        sent += n;
        pulled += n;
        controller.enqueue(new Uint8Array(n).fill(0x61));
      },
    });
    return new Response(stream, { status: 200, headers: declare ? { 'content-length': String(bytes) } : {} });
  };
  return Object.assign(f, { pulled: () => pulled });
}

describe('cappedFetch', () => {
  it('passes a body under the cap through unchanged', async () => {
    const res = await cappedFetch(4096, fakeFetch(4096, false))('http://127.0.0.1/x');
    expect((await res.text()).length).toBe(4096);
  });

  it('refuses a declared length over the cap before reading the body', async () => {
    const base = fakeFetch(10_000_000, true);
    await expect(cappedFetch(4096, base)('http://127.0.0.1/x')).rejects.toBeInstanceOf(ResponseTooLargeError);
    expect(base.pulled()).toBeLessThan(10_000_000);
  });

  it('stops reading an undeclared body as soon as it passes the cap', async () => {
    const base = fakeFetch(50_000_000, false);
    const res = await cappedFetch(8192, base)('http://127.0.0.1/x');
    const err = await res.json().catch((e: unknown) => e);
    expect(responseTooLargeIn(err)).toBeInstanceOf(ResponseTooLargeError);
    // Read a little past the cap, nowhere near the 50 MB on offer.
    expect(base.pulled()).toBeLessThan(200_000);
  });

  it('is classified response_too_large even when an SDK wraps it as a connection error', () => {
    const wrapped = Object.assign(new Error('Connection error.'), { cause: new ResponseTooLargeError(10, 11) });
    expect(classifyError(wrapped)).toBe('response_too_large');
  });

  it('refuses a cap that is not a positive integer', () => {
    expect(() => cappedFetch(0)).toThrow(RangeError);
    expect(() => cappedFetch(1.5)).toThrow(RangeError);
  });
});
