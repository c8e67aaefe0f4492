// A scripted HTTP server on 127.0.0.1 for driving the real SDKs without touching any other host.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as sent, for byte-level prefix checks. */
  rawBody: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  body: unknown;
}

/** What the server does with one request. */
export type ScriptedReply =
  | { kind: 'json'; status?: number; headers?: Record<string, string>; body: unknown }
  /** Drops the connection after reading the request: the client sees a network failure. */
  | { kind: 'reset' }
  /** Never answers; the client has to abort. */
  | { kind: 'hang' };

/** A running loopback server. */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` plus the API's path prefix. */
  readonly baseURL: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Queues replies; each request takes the next one, or the fallback when the queue is empty. */
  enqueue(...replies: ScriptedReply[]): void;
  /** Resolves once `n` requests in total have arrived. */
  received(n: number): Promise<void>;
  /** Closes the server and every open connection (hanging ones included). */
  close(): Promise<void>;
}

/** Options for startLoopbackServer. */
export interface LoopbackServerOptions {
  /** Only POSTs to this path are served; anything else is a 404. */
  path: string;
  /** Prefix appended to the origin in `baseURL` (`/v1` for OpenAI, `` for Anthropic). */
  basePath?: string;
  /** The reply when the queue is empty. */
  fallback: (request: RecordedRequest) => ScriptedReply;
}

function send(res: ServerResponse, reply: Extract<ScriptedReply, { kind: 'json' }>): void {
  // JSON.stringify(undefined) is undefined: a generated body of `undefined` is sent as an empty body, not a crash that leaves the request hanging.
  const text = JSON.stringify(reply.body) ?? '';
  res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...reply.headers });
  res.end(text);
}

/** Starts a server on 127.0.0.1, port 0 (the OS picks a free one). */
export async function startLoopbackServer(options: LoopbackServerOptions): Promise<LoopbackServer> {
  const requests: RecordedRequest[] = [];
  const queue: ScriptedReply[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = undefined;
      }
      const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, rawBody, body };
      requests.push(recorded);
      for (const w of waiters.filter((w) => requests.length >= w.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      if (recorded.method !== 'POST' || recorded.path.split('?')[0] !== options.path) {
        send(res, { kind: 'json', status: 404, body: { error: { type: 'not_found_error', message: `no route ${recorded.method} ${recorded.path}` } } });
        return;
      }
      const reply = queue.shift() ?? options.fallback(recorded);
      if (reply.kind === 'reset') req.socket.destroy();
      else if (reply.kind === 'json') send(res, reply);
      // 'hang': leave the response open until the client gives up or the server closes.
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}${options.basePath ?? ''}`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    received: (n) => (requests.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((e) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      }),
  };
}
