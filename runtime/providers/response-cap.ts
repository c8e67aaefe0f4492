// Bounds what a provider's HTTP answer may cost us: a body past the cap is never read whole.

/**
 * The most bytes of one model answer we read or keep: 8 MiB. A real answer to an 8k-token (or even
 * a 128k-token) max_tokens request is well under 1 MiB, so anything near this is a faulty or hostile
 * server, and holding hundreds of MB of it would risk the whole run's memory.
 */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** The answer passed the cap; thrown from the body stream (or before it, on a declared length) and classified `response_too_large`. */
export class ResponseTooLargeError extends Error {
  constructor(readonly limitBytes: number, readonly seenBytes: number) {
    super(`response body passed the ${limitBytes}-byte cap (${seenBytes} bytes seen; read stopped there)`);
    this.name = 'ResponseTooLargeError';
  }
}

/** The `fetch` shape both SDKs accept. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * Wraps `base` so that a response declaring more than `limitBytes` fails at once and any other body
 * errors as soon as it passes `limitBytes` while streaming. The SDKs see the error when they parse
 * the body (or as a failed fetch) and our classifier finds it in the cause chain.
 */
export function cappedFetch(limitBytes: number = MAX_RESPONSE_BYTES, base: FetchLike = fetch): FetchLike {
  if (!Number.isInteger(limitBytes) || limitBytes <= 0) throw new RangeError(`response cap must be a positive integer of bytes, got ${limitBytes}`);
  return async (input, init) => {
    const response = await base(input, init);
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > limitBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new ResponseTooLargeError(limitBytes, declared);
    }
    if (!response.body) return response;
    let seen = 0;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > limitBytes) controller.error(new ResponseTooLargeError(limitBytes, seen));
        else controller.enqueue(chunk);
      },
    });
    // The stream is cancelled upstream when the counter errors, so the socket stops being read.
    return new Response(response.body.pipeThrough(counter), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** The ResponseTooLargeError somewhere in `e`'s cause chain, if any. */
export function responseTooLargeIn(e: unknown): ResponseTooLargeError | undefined {
  for (let c: unknown = e, depth = 0; typeof c === 'object' && c !== null && depth < 6; c = (c as { cause?: unknown }).cause, depth++) {
    if (c instanceof ResponseTooLargeError) return c;
  }
  return undefined;
}
