// A minimal OTLP/HTTP (JSON) trace receiver on loopback, for trying `bench export --endpoint` and
// `bench run --otlp-endpoint` without a real collector. Prints one line per request and, on Ctrl-C, a
// JSON summary (requests, spans, distinct traces). Usage: npx tsx scripts/export/otlp-collector.ts [PORT]
import { createServer } from 'node:http';
import { spansOf, type OtlpJsonRequest } from '../../harness/export/otlp/span-tree.ts';

const port = Number(process.argv[2] ?? 4318);
let requests = 0;
let spans = 0;
const traces = new Set<string>();
const server = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/v1/traces') {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    try {
      const got = spansOf(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpJsonRequest);
      requests += 1;
      spans += got.length;
      for (const s of got) traces.add(s.traceId);
      process.stdout.write(`request ${requests}: ${got.length} span(s), first: ${got[0]?.name ?? '-'}\n`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    } catch (e) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: (e as Error).message }));
    }
  });
});
server.listen(port, '127.0.0.1', () => process.stdout.write(`OTLP/HTTP receiver on http://127.0.0.1:${port}/v1/traces (Ctrl-C to stop)\n`));
process.on('SIGINT', () => {
  process.stdout.write(`${JSON.stringify({ requests, spans, traces: traces.size })}\n`);
  server.close();
  process.exit(0);
});
