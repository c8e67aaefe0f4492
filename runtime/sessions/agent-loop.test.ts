import { readdirSync } from 'node:fs';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createVirtualClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { createEventBus } from '../events/index.ts';
import type { BusEvent } from '../events/event.ts';
import { loadPriceTable } from '../pricing/index.ts';
import { ProviderError, type Provider } from '../providers/provider.ts';
import { createBuiltinTools, createToolDispatcher } from '../tools/index.ts';
import { createWorkspaceFixture, type WorkspaceFixture } from '../tools/test-support/workspace-fixture.ts';
import type { Message } from '../types/content.ts';
import { defaultResourceLimits } from '../sandbox/resource-limits.ts';
import { MAX_TOOL_CALLS_PER_ANSWER, runTurnLoop } from './agent-loop.ts';
import { contextBudget, elidedMarker } from './context-fit.ts';
import { estimateTokens } from './estimate-tokens.ts';

// The agent loop against a provider that may answer anything: whatever comes back, the turn ends
// with a result (never a throw), every event it emits is valid against the catalog (the bus is
// strict), and no tool reaches outside the workspace.

const MODEL = 'anthropic:claude-sonnet-4-6';
const WINDOW = 3_000; // tokens: small, so tool results have to be elided to fit
const MAX_RESPONSE = 20_000;
const fixtures: WorkspaceFixture[] = [];
afterEach(() => fixtures.splice(0).forEach((f) => f.cleanup()));

const valid = (content: unknown[], stop = 'tool_use') => ({
  model: MODEL,
  content,
  stop_reason: stop,
  usage: {
    input_tokens: 10,
    output_tokens: 5,
    cached_input_tokens: 0,
    cache_creation_input_tokens: 0,
  },
  latency_ms: 3,
  request_id: 'req_1',
});

/** Paths a model might try: inside, outside, absolute, NUL, the check mount, huge. */
const path = fc.oneof(
  fc.constantFrom(
    'notes.md',
    'big.txt',
    'new/file.txt',
    '../outside/x',
    '../../etc/passwd',
    '/etc/passwd',
    'a/../../outside/y',
    'x\0y',
    '.bench-check',
    '.bench-check/t.py',
    '',
    '.',
    'link-out/z',
  ),
  fc.string(),
);
const toolName = fc.oneof(
  fc.constantFrom('read_file', 'write_file', 'edit_file', 'list_files', 'run_shell', 'delegate', 'skill_load'),
  fc.string({ maxLength: 300 }),
);
const input = fc.oneof(
  fc.record({ path, content: fc.string() }, { requiredKeys: [] }),
  fc.record({ path, old_text: fc.string(), new_text: fc.string() }, { requiredKeys: [] }),
  fc.record({
    command: fc.constantFrom('true', 'cat /proc/self/environ', 'echo hi > ../outside/shell.txt'),
  }),
  fc.anything(),
);
const toolUse = fc.record({
  type: fc.constant('tool_use'),
  id: fc.string({ minLength: 1, maxLength: 12 }),
  name: toolName,
  input,
});
const answer = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.array(toolUse, { minLength: 1, maxLength: 40 }).map((uses) => valid(uses)),
  },
  {
    weight: 1,
    arbitrary: fc.string().map((t) => valid([{ type: 'text', text: t }], 'end_turn')),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      {},
      null,
      undefined,
      'text',
      [],
      { content: 'x' },
      valid([{ type: 'text' }]),
      valid([{ type: 'image' }]),
      valid([], 'weird'),
      { ...valid([]), usage: { input_tokens: -1 } },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constant(valid([{ type: 'text', text: 'y'.repeat(MAX_RESPONSE + 1) }], 'end_turn')),
  },
  { weight: 1, arbitrary: fc.anything() },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom<unknown>(new ProviderError('boom', 'server_error'), new TypeError('x is not iterable'), 'a thrown string')
      .map((e) => ({ throws: e })),
  },
);

function scriptedProvider(script: unknown[]): Provider {
  let i = 0;
  return {
    name: 'scripted',
    capabilities: () => ({
      tools: true,
      vision: false,
      prompt_caching: false,
      system_prompt: true,
      context_window: WINDOW,
    }),
    async complete() {
      const next = script[i++];
      if (next === undefined && i > script.length) return valid([{ type: 'text', text: 'done' }], 'end_turn') as never;
      if (typeof next === 'object' && next !== null && 'throws' in next) throw (next as { throws: unknown }).throws;
      return next as never;
    },
  };
}

const ALLOWED_CLASSES = new Set([null, 'server_error', 'other', 'malformed_response', 'response_too_large']);

describe('agent loop against arbitrary provider answers', () => {
  it('always ends the turn with a result, valid events, and nothing written outside the workspace', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(answer, { minLength: 1, maxLength: 6 }), async (script) => {
        const fx = createWorkspaceFixture({
          'notes.md': 'alpha\n',
          'big.txt': 'z'.repeat(6_000),
        });
        fixtures.push(fx);
        const logger = createMemoryLogger();
        const clock = createVirtualClock(1_000_000);
        const bus = createEventBus({ mode: 'strict', logger, clock });
        const seen: BusEvent[] = [];
        bus.subscribe({
          name: 'test',
          filter: {},
          handler: (e: BusEvent) => void seen.push(e),
        });
        const tools = createToolDispatcher({
          tools: createBuiltinTools({
            runShell: { hostPath: process.env.PATH ?? '' },
            reservedPaths: ['.bench-check'],
          }),
          bus,
          logger,
          clock,
        });
        const history: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'do the task' }] }];
        const result = await runTurnLoop(
          {
            session_id: 'ses_1',
            turn_id: 'trn_1',
            workspaceRoot: fx.ws,
            model: MODEL,
            history,
            system: { system: 'You are a test.', system_volatile: null },
            temperature: 0,
            maxTokens: 500,
            maxIterations: 8,
            isWorker: false,
            turnStartedId: 'evt_turn',
            allowedTools: null,
            delegate: null,
          },
          {
            bus,
            provider: scriptedProvider(script),
            tools,
            prices: loadPriceTable(),
            clock,
            maxResponseBytes: MAX_RESPONSE, maxToolCallsPerAnswer: 10,
          },
        );
        await bus.drain();
        expect(ALLOWED_CLASSES.has(result.error_class)).toBe(true);
        expect(result.error_class === null || result.error !== null).toBe(true);
        expect(result.hard_failures).toBe(result.error_class === null ? 0 : 1);
        // Each call ends exactly once; each turn completes exactly once.
        const started = seen.filter((e) => e.type === 'llm.call_started').length;
        const ended = seen.filter((e) => e.type === 'llm.call_completed' || e.type === 'llm.call_failed').length;
        expect(ended).toBe(started);
        expect(seen.filter((e) => e.type === 'turn.completed')).toHaveLength(1);
        // Confinement: the sibling directory stays empty and the check mount was never created.
        expect(readdirSync(fx.outside)).toEqual([]);
        expect(readdirSync(fx.ws)).not.toContain('.bench-check');
        // The history fits the window, or every tool result is already down to its marker (only other content overflows).
        const request = {
          system: 'You are a test.',
          system_volatile: null,
          tools: tools.specs(),
          messages: history,
        };
        if (estimateTokens(request) > contextBudget(WINDOW, 500)) {
          for (const m of history)
            for (const b of m.content)
              if (b.type === 'tool_result')
                expect(b.content.length <= elidedMarker(b.content.length).length || b.content.startsWith('[tool result elided:')).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  }, 120_000);

  it('runs at most the cap of tool calls per answer; the rest get an error result and do not run', async () => {
    const fx = createWorkspaceFixture({ 'notes.md': 'alpha\n' });
    fixtures.push(fx);
    const logger = createMemoryLogger();
    const clock = createVirtualClock(1_000_000);
    const bus = createEventBus({ mode: 'strict', logger, clock });
    const seen: BusEvent[] = [];
    bus.subscribe({ name: 'test', filter: {}, handler: (e: BusEvent) => void seen.push(e) });
    const tools = createToolDispatcher({ tools: createBuiltinTools(), bus, logger, clock });
    const calls = Array.from({ length: 100 }, (_, i) => ({ type: 'tool_use', id: `tu_${i}`, name: 'read_file', input: { path: 'notes.md' } }));
    const history: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'read it a lot' }] }];
    const result = await runTurnLoop(
      { session_id: 'ses_1', turn_id: 'trn_1', workspaceRoot: fx.ws, model: MODEL, history, system: { system: 's', system_volatile: null }, temperature: 0, maxTokens: 500, maxIterations: 4, isWorker: false, turnStartedId: 'evt_turn', allowedTools: null, delegate: null },
      { bus, provider: scriptedProvider([valid(calls)]), tools, prices: loadPriceTable(), clock },
    );
    await bus.drain();
    expect(MAX_TOOL_CALLS_PER_ANSWER).toBe(64);
    expect(seen.filter((e) => e.type === 'tool.called')).toHaveLength(64);
    expect(result.tool_calls).toBe(100);
    expect(result.failed_tool_calls).toBe(36);
    const answers = history[2]!.content;
    expect(answers).toHaveLength(100);
    expect(answers[64]).toMatchObject({ is_error: true, content: 'not run: this answer asked for 100 tool calls; at most 64 run per answer' });
  });

  it('a command that runs into a resource bound ends the turn as resource_limit naming the bound; the answer\'s later calls do not run', async () => {
    const fx = createWorkspaceFixture({ 'notes.md': 'alpha\n' });
    fixtures.push(fx);
    const logger = createMemoryLogger();
    const clock = createVirtualClock(1_000_000);
    const bus = createEventBus({ mode: 'strict', logger, clock });
    const seen: BusEvent[] = [];
    bus.subscribe({ name: 'test', filter: {}, handler: (e: BusEvent) => void seen.push(e) });
    const limits = { ...defaultResourceLimits().sandbox, workspace_max_bytes: 4 * 1024 ** 2 };
    const tools = createToolDispatcher({ tools: createBuiltinTools({ runShell: { hostPath: process.env.PATH ?? '', sandbox: 'auto', limits } }), bus, logger, clock });
    const calls = [
      { type: 'tool_use', id: 'tu_0', name: 'run_shell', input: { command: 'truncate -s 3M a.bin b.bin' } },
      { type: 'tool_use', id: 'tu_1', name: 'write_file', input: { path: 'after.txt', content: 'x' } },
    ];
    const history: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'fill the disk' }] }];
    const provider = scriptedProvider([valid(calls), valid(calls)]);
    const result = await runTurnLoop(
      { session_id: 'ses_1', turn_id: 'trn_1', workspaceRoot: fx.ws, model: MODEL, history, system: { system: 's', system_volatile: null }, temperature: 0, maxTokens: 500, maxIterations: 4, isWorker: false, turnStartedId: 'evt_turn', allowedTools: null, delegate: null },
      { bus, provider, tools, prices: loadPriceTable(), clock },
    );
    await bus.drain();
    expect(result.error_class).toBe('resource_limit');
    expect(result.error).toMatch(/^resource_limit: resource limit workspace_max_bytes \(4 MiB\) exceeded/);
    expect(result.llm_calls).toBe(1);
    expect(seen.filter((e) => e.type === 'tool.failed').map((e) => (e.payload as { error_class: string }).error_class)).toEqual(['resource_limit']);
    expect(readdirSync(fx.ws)).not.toContain('after.txt');
  });
});

