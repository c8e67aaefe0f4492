import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { validatorFor } from '../../runtime/core/schemas.ts';
import type { BenchReport } from '../../schemas/types/report.ts';
import { bench, tempDir } from '../support/cli.ts';
import { copyWorkloads } from '../support/workload-variants.ts';
import {
  anthropicText,
  anthropicToolUse,
  openaiToolCalls,
  startFakeAnthropic,
  startFakeOpenAI,
  type LoopbackServer,
  type ScriptedReply,
} from '../support/loopback/index.ts';

// Issue 12 item 4: whatever the model or the provider does, the rep ends as a classified error, the
// suite goes on to its next workload and writes a schema-valid report (exit 0 or 1, never 2). Each
// probe goes through the real SDK adapters against a loopback server; nothing leaves 127.0.0.1.

const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const FIRST = 'fix-a-bug-small';
const SECOND = 'write-a-doc-from-notes';
const validateReport = validatorFor<BenchReport>('report.schema.json');

/** Two workloads (the first holds a 60 KB file), run on `provider` at `server`; returns exit, output and the report. */
async function runTwo(provider: 'anthropic' | 'openai', server: LoopbackServer) {
  const dir = copyWorkloads([FIRST, SECOND]);
  writeFileSync(join(dir, FIRST, 'workspace', 'big.txt'), 'x'.repeat(60 * 1024));
  const db = join(tempDir(), 'run.db');
  const model = provider === 'openai' ? ['--model', 'gpt-5-mini', '--baseline', 'gpt-5'] : [];
  const env = { PATH: process.env.PATH, ...(provider === 'openai' ? { OPENAI_API_KEY: 'sk-test-openai' } : { ANTHROPIC_API_KEY: 'sk-ant-test' }) };
  const r = await bench(['run', '--provider', provider, '--base-url', server.baseURL, ...model, '--workloads-dir', dir, '--workload', FIRST, '--workload', SECOND, '--db-path', db, '--quiet'], { env });
  const json = db.replace(/\.db$/, '.json');
  const report = existsSync(json) ? (JSON.parse(readFileSync(json, 'utf8')) as BenchReport) : null;
  return { ...r, report, db };
}

/** The suite went on: exit 0/1, a valid report, and the second workload ran. */
function expectSuiteWentOn(r: Awaited<ReturnType<typeof runTwo>>) {
  expect(r.code, r.stderr).not.toBe(2);
  expect(r.report, 'report JSON written').not.toBeNull();
  expect(validateReport(r.report), JSON.stringify(validateReport.errors)).toBe(true);
  expect(r.report!.workloads.map((w) => w.workload).sort()).toEqual([FIRST, SECOND]);
  return r.report!;
}

const firstRep = (report: BenchReport) => report.workloads.find((w) => w.workload === FIRST)!.reps[0]!;

describe('a misbehaving model or provider ends the rep, not the suite', () => {
  it('write_file onto .bench-check is a permission_denied tool error for the model, and the check still runs', async () => {
    const server = await startFakeAnthropic();
    servers.push(server);
    server.enqueue(anthropicToolUse([{ name: 'write_file', input: { path: '.bench-check', content: 'x' } }, { name: 'write_file', input: { path: '.bench-check/test_pager.py', content: 'import sys; sys.exit(0)' } }]));
    const r = await runTwo('anthropic', server);
    const report = expectSuiteWentOn(r);
    const answer = JSON.stringify((server.requests[1]!.body as { messages: unknown[] }).messages.at(-1));
    expect(answer).toContain('permission_denied');
    expect(answer).toContain('reserved for the harness');
    expect(firstRep(report).check).not.toBeNull();
  }, 120_000);

  it('thirty read_file calls on a 60 KB file in one answer: the oldest results are elided so the next call fits', async () => {
    const server = await startFakeAnthropic();
    servers.push(server);
    server.enqueue(anthropicToolUse(Array.from({ length: 30 }, () => ({ name: 'read_file', input: { path: 'big.txt' } }))));
    const r = await runTwo('anthropic', server);
    const report = expectSuiteWentOn(r);
    expect(firstRep(report).error).toBeNull();
    const second = server.requests[1]!.rawBody;
    expect(second).toContain('[tool result elided:');
    // Under the 200k-token window of the model at ≈4 characters per token.
    expect(second.length).toBeLessThan(200_000 * 4);
  }, 120_000);

  it('an answer that no longer fits any window at the next turn ends the rep as context_overflow', async () => {
    const server = await startFakeAnthropic();
    servers.push(server);
    // 1 MiB of text: under the response cap, over the 200k-token window once it is history.
    server.enqueue(anthropicText('y'.repeat(1024 * 1024)));
    const r = await runTwo('anthropic', server);
    const report = expectSuiteWentOn(r);
    expect(firstRep(report).error_class).toBe('context_overflow');
    expect(r.stdout).toMatch(/Reps that ended in an error \(1\):\n {2}fix-a-bug-small, pass single, rep 1: context_overflow: turn 2:/);
  }, 120_000);

  it('a model that never ends its turn is stopped by the iteration guard: iteration_limit, and the rep is still checked', async () => {
    const server = await startFakeAnthropic();
    servers.push(server);
    server.enqueue(...Array.from({ length: 25 }, () => anthropicToolUse([{ name: 'list_files', input: { path: '.' } }])));
    const r = await runTwo('anthropic', server);
    const report = expectSuiteWentOn(r);
    expect(firstRep(report).error_class).toBe('iteration_limit');
    expect(firstRep(report).error).toContain('iteration guard: 25 LLM calls without end_turn');
    expect(firstRep(report).check).not.toBeNull();
  }, 120_000);

  it.each(['anthropic', 'openai'] as const)('%s: a 200 answering {} is malformed_response', async (provider) => {
    const server = provider === 'anthropic' ? await startFakeAnthropic() : await startFakeOpenAI();
    servers.push(server);
    server.enqueue({ kind: 'json', body: {} });
    const r = await runTwo(provider, server);
    const report = expectSuiteWentOn(r);
    expect(firstRep(report).error_class).toBe('malformed_response');
    expect(firstRep(report).error).toContain('malformed response');
    expect(r.code).toBe(1);
  }, 120_000);

  it.each(['anthropic', 'openai'] as const)('%s: a reply past the 8 MiB cap is response_too_large and is not retried', async (provider) => {
    const server = provider === 'anthropic' ? await startFakeAnthropic() : await startFakeOpenAI();
    servers.push(server);
    const text = 'z'.repeat(9 * 1024 * 1024);
    const huge: ScriptedReply =
      provider === 'anthropic'
        ? { kind: 'json', body: { id: 'm', type: 'message', role: 'assistant', model: 'claude-sonnet-4-6', content: [{ type: 'text', text }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } }
        : { kind: 'json', body: { id: 'c', object: 'chat.completion', created: 1, model: 'gpt-5-mini', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }] } };
    server.enqueue(huge);
    const r = await runTwo(provider, server);
    const report = expectSuiteWentOn(r);
    expect(firstRep(report).error_class).toBe('response_too_large');
    // One request for the huge answer; the next ones are the second workload's.
    expect(server.requests.filter((q) => q.rawBody.includes('The pagination tests in this repo are failing')).length).toBe(1);
  }, 120_000);

  it('openai: tool calls with invalid arguments, unknown names and paths out of the workspace are tool.input_invalid or permission_denied', async () => {
    const server = await startFakeOpenAI();
    servers.push(server);
    server.enqueue(
      openaiToolCalls([
        { name: 'read_file', arguments: '[1,2]' },
        { name: 'write_file', arguments: 'not json' },
        { name: 'no_such_tool', arguments: '{}' },
        { name: 'read_file', arguments: '{"path":"../../etc/passwd"}' },
        { name: 'edit_file', arguments: '{"path":7}' },
      ]),
    );
    const r = await runTwo('openai', server);
    const report = expectSuiteWentOn(r);
    expect(firstRep(report).error).toBeNull();
    const results = JSON.stringify((server.requests[1]!.body as { messages: unknown[] }).messages.slice(-5));
    expect(results).toContain('invalid input for tool');
    expect(results).toContain('permission_denied');
  }, 120_000);
});

/** Wire bodies a faulty or hostile server might send with status 200. */
const wireBody = fc.oneof(
  fc.constantFrom<unknown>({}, [], null, 'text', { content: null }, { content: [{ type: 'text' }] }, { content: [{ type: 'tool_use', name: 42 }] }, { choices: [] }, { choices: [{ message: null }] }),
  fc.record({ content: fc.array(fc.record({ type: fc.constantFrom('text', 'tool_use', 'image'), text: fc.oneof(fc.string(), fc.integer()), name: fc.constantFrom('read_file', 'write_file', 'run_shell', 'x'), input: fc.anything() }, { requiredKeys: ['type'] })), stop_reason: fc.constantFrom('tool_use', 'end_turn', 'bogus', undefined) }, { requiredKeys: [] }),
  fc.anything(),
);

const openaiBody = fc.oneof(
  fc.constantFrom<unknown>({}, { choices: [] }, { choices: [{ message: null }] }, { choices: [{ message: { content: 7 } }] }, { choices: [{ message: { tool_calls: 'x' } }] }),
  fc.record(
    {
      choices: fc.array(
        fc.record(
          {
            message: fc.record({ content: fc.oneof(fc.string(), fc.constant(null), fc.integer()), tool_calls: fc.array(fc.record({ type: fc.constantFrom('function', 'custom', undefined), function: fc.record({ name: fc.constantFrom('read_file', 'write_file', '', 'zz'), arguments: fc.oneof(fc.string(), fc.json(), fc.anything()) }, { requiredKeys: [] }) }, { requiredKeys: [] })) }, { requiredKeys: [] }),
            finish_reason: fc.constantFrom('stop', 'tool_calls', 'length', null),
          },
          { requiredKeys: [] },
        ),
        { maxLength: 2 },
      ),
    },
    { requiredKeys: [] },
  ),
  fc.anything(),
);

describe('property: any answer from the provider, the run finishes with a report', () => {
  it.each([
    ['anthropic', wireBody],
    ['openai', openaiBody],
  ] as const)('%s: exit 0 or 1 and a schema-valid report for random 200 bodies and random tool calls', async (provider, bodyArb) => {
    await fc.assert(
      fc.asyncProperty(fc.array(bodyArb, { minLength: 1, maxLength: 4 }), async (bodies) => {
        const server = provider === 'anthropic' ? await startFakeAnthropic() : await startFakeOpenAI();
        servers.push(server);
        server.enqueue(...bodies.map((body): ScriptedReply => ({ kind: 'json', body })));
        const r = await runTwo(provider, server);
        expect([0, 1]).toContain(r.code);
        expectSuiteWentOn(r);
        await server.close();
        servers.splice(servers.indexOf(server), 1);
      }),
      // An `undefined` body once made the fake server throw and the request hang: kept as a fixed example.
      { numRuns: 6, examples: [[[undefined]]] },
    );
  }, 240_000);
});
