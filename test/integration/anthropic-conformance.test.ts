import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createVirtualClock } from '../../runtime/core/clock.ts';
import { loadModelRegistry } from '../../runtime/models/model-registry.ts';
import { createSimProvider, loadSimScript } from '../../runtime/providers/sim/index.ts';
import type { ContentBlock, Message } from '../../runtime/types/content.ts';
import type { CanonicalRequest } from '../../runtime/types/request.ts';
import type { CanonicalResponse } from '../../runtime/types/response.ts';
import { cacheBreakpoints, errorsOf, REQUEST_SCHEMA, sdkAnthropicVersion, validateRequest, validateResponse } from '../support/anthropic-wire-schema.ts';
import { bench, REPO_ROOT, tempDir } from '../support/cli.ts';

// A real `bench run --provider anthropic` through the official SDK, against a loopback Messages API
// whose answers come from the simulated provider playing the workload's sim.yaml: the run does real
// tool cycles and reaches the hidden check, and every request the adapter sent is checked on the wire.

type WireBlock = { type: string; text?: string; cache_control?: unknown; id?: string; name?: string; input?: unknown; tool_use_id?: string; content?: unknown; is_error?: boolean };
type WireBody = { model: string; max_tokens: number; temperature?: number; system?: WireBlock[]; tools?: { name: string; description?: string; input_schema: Record<string, unknown> }[]; messages: { role: 'user' | 'assistant'; content: string | WireBlock[] }[] };

/** The wire body back to the canonical request the sim plays (the inverse of toAnthropicParams). */
function canonicalOf(body: WireBody): CanonicalRequest {
  const block = (b: WireBlock): ContentBlock =>
    b.type === 'tool_use'
      ? { type: 'tool_use', id: b.id!, name: b.name!, input: b.input as Record<string, unknown> }
      : b.type === 'tool_result'
        ? { type: 'tool_result', tool_use_id: b.tool_use_id!, content: typeof b.content === 'string' ? b.content : '', is_error: b.is_error ?? false }
        : { type: 'text', text: b.text ?? '' };
  const messages: Message[] = body.messages.map((m) => ({ role: m.role, content: typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content.map(block) }));
  return {
    model: `anthropic:${body.model}`,
    system: body.system?.find((b) => b.cache_control)?.text ?? null,
    system_volatile: body.system?.find((b) => !b.cache_control)?.text ?? null,
    tools: (body.tools ?? []).map((t) => ({ name: t.name, description: t.description ?? '', input_schema: t.input_schema })),
    messages,
    temperature: body.temperature ?? 0,
    max_tokens: body.max_tokens,
  };
}

/** A canonical response as a Messages API 200 body, with the optional usage fields the API sends. */
function wireOf(r: CanonicalResponse, model: string, n: number): Record<string, unknown> {
  return {
    id: `msg_sim_${n}`,
    type: 'message',
    role: 'assistant',
    model,
    content: r.content.map((b) => (b.type === 'text' ? { type: 'text', text: b.text, citations: null } : b.type === 'tool_use' ? { type: 'tool_use', id: b.id, name: b.name, input: b.input } : b)),
    stop_reason: r.stop_reason,
    stop_sequence: null,
    usage: {
      input_tokens: r.usage.input_tokens,
      output_tokens: r.usage.output_tokens,
      cache_read_input_tokens: r.usage.cached_input_tokens,
      cache_creation_input_tokens: r.usage.cache_creation_input_tokens,
      cache_creation: { ephemeral_5m_input_tokens: r.usage.cache_creation_input_tokens, ephemeral_1h_input_tokens: 0 },
      server_tool_use: null,
      service_tier: 'standard',
    },
  };
}

interface Captured {
  headers: IncomingHttpHeaders;
  body: unknown;
  reply: Record<string, unknown>;
}

/** The loopback Messages API played by the sim for one workload (rep 0 of pass single, seed 0). */
async function simBackedServer(workload: string): Promise<{ url: string; captured: Captured[]; server: Server }> {
  const sim = createSimProvider({ script: loadSimScript(join(REPO_ROOT, 'workloads', workload, 'sim.yaml')), registry: loadModelRegistry(), context: { seed: 0, workload, pass: 'single', rep: 0 }, clock: createVirtualClock() });
  const captured: Captured[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as WireBody;
        try {
          const reply = wireOf(await sim.complete(canonicalOf(body)), body.model, captured.length);
          captured.push({ headers: req.headers, body, reply });
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
        } catch (e) {
          res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: (e as Error).message } }));
        }
      })();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, captured, server };
}

const servers: Server[] = [];
afterAll(() => {
  for (const s of servers) s.close();
});

describe('Anthropic adapter: the requests of a sim-driven run, captured on loopback, validate', () => {
  it.each(['fix-a-bug-small', 'multi-turn-refactor'])('%s', async (workload) => {
    const { url, captured, server } = await simBackedServer(workload);
    servers.push(server);
    const db = join(tempDir(), 'a.db');
    const r = await bench(['run', '--provider', 'anthropic', '--base-url', url, '--workload', workload, '--quiet', '--db-path', db], { env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: 'sk-ant-loopback' } });
    expect([0, 1], r.stderr).toContain(r.code);
    expect(captured.length).toBeGreaterThan(3);
    // A real run: the sim's plans drove real tool calls through to the hidden check.
    const report = JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as { provenance: { actual_provider: string }; workloads: { reps: { check: unknown; llm_calls: number }[] }[] };
    expect(report.provenance.actual_provider).toBe('anthropic');
    expect(report.workloads[0]!.reps[0]!.check).not.toBeNull();
    expect(report.workloads[0]!.reps[0]!.llm_calls).toBe(captured.length);
    const version = sdkAnthropicVersion();
    const headers = REQUEST_SCHEMA['x-headers'] as { required: string[]; auth_one_of: string[] };
    for (const [i, c] of captured.entries()) {
      expect(validateRequest(c.body), `request ${i}: ${errorsOf(validateRequest).join('; ')}`).toBe(true);
      expect(cacheBreakpoints(c.body), `request ${i}`).toBeLessThanOrEqual(4);
      for (const h of headers.required) expect(c.headers[h], `request ${i} header ${h}`).toBeTruthy();
      expect(c.headers['anthropic-version']).toBe(version);
      expect(headers.auth_one_of.some((h) => typeof c.headers[h] === 'string')).toBe(true);
      expect(validateResponse(c.reply), `reply ${i}: ${errorsOf(validateResponse).join('; ')}`).toBe(true);
    }
    // The run exercised what the schema covers: tools with a breakpoint, the stable system block with one,
    // assistant tool_use, user tool_result, max_tokens; and nothing the adapter does not send.
    const bodies = captured.map((c) => c.body as WireBody);
    expect(bodies.every((b) => b.tools?.at(-1) && (b.tools.at(-1) as { cache_control?: unknown }).cache_control)).toBe(true);
    expect(bodies.every((b) => b.system?.[0]?.cache_control)).toBe(true);
    const blocks = bodies.flatMap((b) => b.messages.flatMap((m) => (typeof m.content === 'string' ? [] : m.content)));
    expect(blocks.some((b) => b.type === 'tool_use')).toBe(true);
    expect(blocks.some((b) => b.type === 'tool_result')).toBe(true);
    expect(bodies.every((b) => Number.isInteger(b.max_tokens) && !('stop_sequences' in b))).toBe(true);
  }, 240_000);
});
