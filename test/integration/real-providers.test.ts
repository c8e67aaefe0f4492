import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import { bench, tempDir } from '../support/cli.ts';
import { anthropicError, anthropicToolUse, openaiError, startFakeAnthropic, startFakeOpenAI, type LoopbackServer } from '../support/loopback/index.ts';

// `bench run` against real-provider adapters, through the official SDKs, pointed at loopback servers
// that speak each API's wire format. Nothing here leaves 127.0.0.1.
const SECRET = 'sk-ant-api03-PLANTED-SECRET-VALUE-0123456789';
const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const read = (db: string) => JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;

describe('bench run with a real provider (loopback)', () => {
  it('anthropic: a workload with a tool cycle runs end to end, priced, not labelled simulated, and the key goes nowhere', async () => {
    const server = await startFakeAnthropic();
    servers.push(server);
    server.enqueue(anthropicToolUse([{ name: 'list_files', input: { path: '.' } }]));
    const db = join(tempDir(), 'a.db');
    const r = await bench(['run', '--provider', 'anthropic', '--base-url', server.baseURL, '--workload', 'write-a-doc-from-notes', '--db-path', db], {
      env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: SECRET },
    });
    expect(r.code, r.stderr).not.toBe(2);
    const report = read(db);
    expect(report.provenance.actual_provider).toBe('anthropic');
    expect(report.banner).toBeNull();
    expect(r.stdout).not.toContain('SIMULATED');
    expect(report.aggregate.savings.rows_total).toBe(server.requests.length);
    expect(report.workloads[0]!.tool_calls).toBeGreaterThanOrEqual(1);
    // The stable system block carries the breakpoint; the tools list's last entry too (context-assembler §3).
    const body = server.requests[0]!.body as { system: { cache_control?: unknown }[]; tools: { cache_control?: unknown }[] };
    expect(body.system[0]!.cache_control).toEqual({ type: 'ephemeral' });
    expect(body.tools.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
    for (const text of [readFileSync(db).toString('latin1'), readFileSync(db.replace(/\.db$/, '.json'), 'utf8'), r.stdout, r.stderr]) expect(text).not.toContain(SECRET);
  });

  it('anthropic: an auth failure stops the run with exit 2 naming the variable, never its value', async () => {
    const server = await startFakeAnthropic();
    servers.push(server);
    server.enqueue(anthropicError(401, 'authentication_error', `invalid x-api-key ${SECRET}`));
    const r = await bench(['run', '--provider', 'anthropic', '--base-url', server.baseURL, '--workload', 'fix-a-bug-small', '--db-path', join(tempDir(), 'b.db')], {
      env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: SECRET },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('ANTHROPIC_API_KEY');
    expect(r.stderr).not.toContain(SECRET);
    expect(server.requests.length).toBe(1); // auth is never retried
  });

  it('a provider that never answers: each attempt gives up at --request-timeout, each retry is shown as it happens, and the rep ends as a network error', async () => {
    const server = await startFakeAnthropic(() => ({ kind: 'hang' }));
    servers.push(server);
    const db = join(tempDir(), 'h.db');
    const r = await bench(['run', '--provider', 'anthropic', '--base-url', server.baseURL, '--workload', 'write-a-doc-from-notes', '--db-path', db, '--request-timeout', '2', '--max-retries', '1'], {
      env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: SECRET },
    });
    expect(r.code, r.stderr).toBe(1);
    // The first attempt and one retry, each left hanging by the server until the timeout ended it (2 s: a
    // loaded machine still gets each request to the server before its attempt gives up).
    expect(server.requests).toHaveLength(2);
    expect(r.progress).toMatch(/^anthropic: network failure: Request timed out; retry 1 of 1 in \d+(\.\d)? s$/m);
    const rep = read(db).workloads[0]!.reps[0]!;
    expect(rep.error_class).toBe('network');
    expect(rep.error).toMatch(/network failure after 1 retry: Request timed out/);
    for (const text of [r.stdout, r.stderr, r.progress]) expect(text).not.toContain(SECRET);
  });

  it('--request-timeout and --max-retries refuse values that make no sense, naming the flag', async () => {
    for (const [flag, value] of [['--request-timeout', '0'], ['--request-timeout', 'soon'], ['--max-retries', '-1'], ['--max-retries', '1.5']] as const) {
      const r = await bench(['run', '--provider', 'anthropic', '--workload', 'write-a-doc-from-notes', flag, value], { env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: SECRET } });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(flag);
    }
  });

  it('openai: a 503 then an answer is one retry, shown as it happens with the server error and the wait, and the rep goes on', async () => {
    const server = await startFakeOpenAI();
    servers.push(server);
    server.enqueue(openaiError(503, 'overloaded', { type: 'server_error' }));
    const db = join(tempDir(), 'o.db');
    const r = await bench(['run', '--provider', 'openai', '--model', 'gpt-5-mini', '--baseline', 'gpt-5', '--base-url', server.baseURL, '--workload', 'write-a-doc-from-notes', '--db-path', db, '--max-retries', '2'], {
      env: { PATH: process.env.PATH, OPENAI_API_KEY: 'sk-test-openai' },
    });
    expect(r.code, r.stderr).not.toBe(2);
    expect(r.progress).toMatch(/^openai: .*503.*; retry 1 of 2 in \d+(\.\d)? s$/m);
    expect(r.progress.match(/; retry \d+ of/g)).toHaveLength(1);
    expect(read(db).workloads[0]!.reps[0]!.error_class).toBeNull();
  });

  it('bench signal takes the same flags: a retry is a line in its log, beside a line per finished arm', async () => {
    const server = await startFakeAnthropic();
    servers.push(server);
    server.enqueue(anthropicError(529, 'overloaded_error', 'Overloaded'));
    const r = await bench(['signal', '--provider', 'anthropic', '--base-url', server.baseURL, '--workload', 'write-a-doc-from-notes', '--reps', '1', '--db-path', join(tempDir(), 's.db'), '--max-retries', '1', '--request-timeout', '30'], {
      env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: SECRET },
    });
    expect(r.code, r.stderr).not.toBe(2);
    expect(r.progress).toMatch(/^anthropic: .*529.*; retry 1 of 1 in \d+(\.\d)? s$/m);
    expect(r.progress).toMatch(/^\[\d+\/\d+\] pass \S+ write-a-doc-from-notes: 1 rep\(s\) done/m);
    expect(r.progress).not.toContain(SECRET);
  });

  it('auto picks the real provider when its key is set; a named provider without its key is exit 2', async () => {
    const server = await startFakeOpenAI();
    servers.push(server);
    const db = join(tempDir(), 'c.db');
    const r = await bench(['run', '--model', 'gpt-5-mini', '--baseline', 'gpt-5', '--base-url', server.baseURL, '--workload', 'write-a-doc-from-notes', '--db-path', db], {
      env: { PATH: process.env.PATH, OPENAI_API_KEY: 'sk-test-openai' },
    });
    expect(r.code, r.stderr).not.toBe(2);
    expect(read(db).provenance.actual_provider).toBe('openai');
    const missing = await bench(['run', '--provider', 'openai', '--model', 'gpt-5-mini', '--workload', 'write-a-doc-from-notes', '--db-path', join(tempDir(), 'd.db')], { env: { PATH: process.env.PATH } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--provider openai needs OPENAI_API_KEY in the environment');
  });

  it('openai-compatible: a model the registry does not know runs with no key, and its unpriced rows are reported', async () => {
    const server = await startFakeOpenAI();
    servers.push(server);
    const db = join(tempDir(), 'e.db');
    const r = await bench(['run', '--provider', 'openai-compatible', '--base-url', server.baseURL, '--model', 'ollama:qwen2.5-coder', '--workload', 'write-a-doc-from-notes', '--db-path', db], { env: { PATH: process.env.PATH } });
    expect(r.code, r.stderr).not.toBe(2);
    const report = read(db);
    expect(report.provenance.actual_model).toBe('openai-compatible:qwen2.5-coder');
    expect(report.aggregate.savings.rows_missing_from_price_table).toBe(server.requests.length);
    expect(report.warnings.join('\n')).toContain('not in price table');
    expect((server.requests[0]!.body as { model: string }).model).toBe('qwen2.5-coder');
  });
});
