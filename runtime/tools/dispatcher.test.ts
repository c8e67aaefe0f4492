import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createVirtualClock, type VirtualClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { validatorFor } from '../core/schemas.ts';
import type { BusEvent } from '../events/event.ts';
import type { ToolUseBlock } from '../types/content.ts';
import { createToolDispatcher, type DispatchContext, type ToolDispatcher } from './dispatcher.ts';
import { createBuiltinTools } from './builtin/index.ts';
import { inputDigest } from './input-hash.ts';
import { ToolError, type Tool } from './tool.ts';
import { createRecordingBus, type RecordingBus } from './test-support/recording-bus.ts';
import { createWorkspaceFixture, type WorkspaceFixture } from './test-support/workspace-fixture.ts';

const LLM_COMPLETED = 'evt_llm_completed';

/** A tool whose behaviour each test sets, advancing the virtual clock to give a known latency. */
function scriptedTool(clock: VirtualClock, behave: () => Promise<string>): Tool {
  return {
    name: 'scripted',
    description: 'test tool',
    side_effects: 'none',
    input_schema: { type: 'object', additionalProperties: false, properties: {} },
    async run() {
      clock.advanceUs(12_400);
      return { content: await behave() };
    },
  };
}

let fx: WorkspaceFixture;
let bus: RecordingBus;
let clock: VirtualClock;
let dispatcher: ToolDispatcher;
let behave: () => Promise<string>;
let ctx: DispatchContext;

beforeEach(() => {
  fx = createWorkspaceFixture({ 'notes.md': 'alpha\nbeta\n' });
  bus = createRecordingBus();
  clock = createVirtualClock(1_000_000);
  behave = async () => 'ok';
  const tools = [...createBuiltinTools({ runShell: { hostPath: process.env.PATH ?? '' } }), scriptedTool(clock, () => behave())];
  dispatcher = createToolDispatcher({ tools, bus, logger: createMemoryLogger(), clock });
  ctx = { workspaceRoot: fx.ws, session_id: 'ses_1', turn_id: 'trn_1', parent_event_id: LLM_COMPLETED };
});
afterEach(() => fx.cleanup());

const call = (name: string, input: Record<string, unknown>, id = 'tu_1'): ToolUseBlock => ({ type: 'tool_use', id, name, input });

/** Each emitted payload must satisfy its catalog schema (schemas/events/<type>.json). */
function expectCatalogValid(events: BusEvent[]) {
  for (const e of events) {
    const validate = validatorFor(`events/${e.type}.json`);
    expect(validate(e.payload), `${e.type}: ${JSON.stringify(validate.errors)}`).toBe(true);
  }
}

describe('tool dispatcher', () => {
  it('offers specs sorted by name', () => {
    expect(dispatcher.specs().map((s) => s.name)).toEqual(['delegate', 'edit_file', 'list_files', 'read_file', 'run_shell', 'scripted', 'write_file']);
    expect(dispatcher.specs()[1]).toEqual({ name: 'edit_file', description: expect.any(String), input_schema: expect.any(Object) });
  });

  it('emits tool.called then tool.completed, chained to the llm call, with audit details', async () => {
    const input = { path: 'notes.md', old_text: 'beta', new_text: 'gamma' };
    const r = await dispatcher.dispatch(call('edit_file', input), ctx);
    const [called, completed] = bus.events;
    expect(bus.events.map((e) => e.type)).toEqual(['tool.called', 'tool.completed']);
    expect(called).toMatchObject({
      parent_event_id: LLM_COMPLETED,
      session_id: 'ses_1',
      turn_id: 'trn_1',
      actor: 'agent',
      payload: { tool_use_id: 'tu_1', tool_name: 'edit_file', side_effects: 'write', ...inputDigest(input) },
    });
    expect(completed).toMatchObject({
      parent_event_id: called!.id,
      actor: 'tool',
      payload: { tool_use_id: 'tu_1', success: true, files_modified: ['notes.md'], command_executed: null },
    });
    expect(completed!.payload.output_size_bytes).toBe(Buffer.byteLength(r.result.content));
    expect(r).toEqual({ result: { type: 'tool_result', tool_use_id: 'tu_1', content: r.result.content, is_error: false }, event_id: completed!.id, failed: false });
    expect(readFileSync(join(fx.ws, 'notes.md'), 'utf8')).toBe('alpha\ngamma\n');
    expectCatalogValid(bus.events);
  });

  it('hashes the input the same whatever its key order', async () => {
    await dispatcher.dispatch(call('edit_file', { path: 'notes.md', old_text: 'alpha', new_text: 'x' }, 'tu_a'), ctx);
    await dispatcher.dispatch(call('edit_file', { new_text: 'x', old_text: 'alpha', path: 'notes.md' }, 'tu_b'), ctx);
    const [a, b] = bus.ofType('tool.called');
    expect(a!.payload.input_hash).toBe(b!.payload.input_hash);
    expect(a!.payload.input_size_bytes).toBe(b!.payload.input_size_bytes);
  });

  it('measures latency with the injected clock', async () => {
    await dispatcher.dispatch(call('scripted', {}), ctx);
    expect(bus.ofType('tool.completed')[0]!.payload.latency_ms).toBe(12);
  });

  it('reports a wrong field as tool.input_invalid with the errors, without running the tool', async () => {
    const r = await dispatcher.dispatch(call('write_file', { file: 'x.txt', content: 'x' }), ctx);
    expect(bus.events.map((e) => e.type)).toEqual(['tool.input_invalid']);
    const ev = bus.events[0]!;
    expect(ev).toMatchObject({ parent_event_id: LLM_COMPLETED, actor: 'system', payload: { tool_name: 'write_file' } });
    const errors = ev.payload.validation_errors as string[];
    expect(errors.some((e) => e.includes("'file'"))).toBe(true);
    expect(errors.some((e) => e.includes("'path'"))).toBe(true);
    expect(r).toMatchObject({ event_id: ev.id, failed: true, result: { tool_use_id: 'tu_1', is_error: true } });
    expect(r.result.content).toContain('write_file');
    expectCatalogValid(bus.events);
  });

  it('reports an unknown tool as tool.input_invalid', async () => {
    const r = await dispatcher.dispatch(call('delete_everything', {}), ctx);
    expect(bus.events).toHaveLength(1);
    expect(bus.events[0]).toMatchObject({ type: 'tool.input_invalid', parent_event_id: LLM_COMPLETED, payload: { tool_name: 'delete_everything' } });
    expect((bus.events[0]!.payload.validation_errors as string[])[0]).toContain("unknown tool 'delete_everything'");
    expect(r.failed).toBe(true);
    expect(r.result.is_error).toBe(true);
  });

  it('maps a ToolError to tool.failed with its class and a one-line error result', async () => {
    const r = await dispatcher.dispatch(call('read_file', { path: 'missing.md' }), ctx);
    const [called, failed] = bus.events;
    expect(failed).toMatchObject({ type: 'tool.failed', parent_event_id: called!.id, actor: 'tool', payload: { tool_use_id: 'tu_1', error_class: 'not_found' } });
    expect(r).toMatchObject({ event_id: failed!.id, failed: true, result: { is_error: true } });
    expect(r.result.content).toMatch(/^not_found: [^\n]*'missing\.md'$/);
    expectCatalogValid(bus.events);
  });

  it('maps any other exception to execution_error, on one line and without the workspace path', async () => {
    behave = async () => {
      throw new Error(`boom at ${fx.ws}/x.py\n  line 2`);
    };
    const r = await dispatcher.dispatch(call('scripted', {}), ctx);
    const failed = bus.ofType('tool.failed')[0]!;
    expect(failed.payload).toMatchObject({ error_class: 'execution_error', error_message: 'boom at ./x.py line 2' });
    expect(r.result.content).toBe('execution_error: boom at ./x.py line 2');
  });

  it('keeps ToolError classes such as permission_denied', async () => {
    behave = async () => {
      throw new ToolError('permission_denied', 'nope');
    };
    await dispatcher.dispatch(call('scripted', {}), ctx);
    expect(bus.ofType('tool.failed')[0]!.payload.error_class).toBe('permission_denied');
  });

  it('treats a non-zero shell exit as completed (success false), and a timeout as tool.failed timeout', async () => {
    const exit = await dispatcher.dispatch(call('run_shell', { command: 'exit 3' }), ctx);
    expect(exit.failed).toBe(false);
    expect(exit.result).toMatchObject({ is_error: false, content: '[exit code: 3]' });
    expect(bus.ofType('tool.completed')[0]!.payload).toMatchObject({ success: false, command_executed: 'exit 3', files_modified: null });

    const slow = await dispatcher.dispatch(call('run_shell', { command: 'sleep 30', timeout_seconds: 0.3 }, 'tu_2'), ctx);
    expect(slow.failed).toBe(true);
    expect(bus.ofType('tool.failed')[0]!.payload).toMatchObject({ tool_use_id: 'tu_2', error_class: 'timeout' });
    expectCatalogValid(bus.events);
  });

  it('applies schema defaults for the tool without changing the input the model sent', async () => {
    const input = {};
    const r = await dispatcher.dispatch(call('list_files', input), ctx);
    expect(r.result.content).toBe('notes.md');
    expect(input).toEqual({});
    expect(bus.ofType('tool.called')[0]!.payload).toMatchObject(inputDigest({}));
  });

  it('records the worker as actor of tool.called for delegated calls', async () => {
    await dispatcher.dispatch(call('scripted', {}), { ...ctx, actor: 'worker' });
    expect(bus.ofType('tool.called')[0]!.actor).toBe('worker');
  });

  it('answers an input of any shape or a huge unknown name with tool.input_invalid, never a throw', async () => {
    const shapes: unknown[] = [null, undefined, [1, 2], 'path=notes.md', 42, true, { path: 7 }, { path: 'notes.md', extra: { deep: [null] } }];
    for (const [i, input] of shapes.entries()) {
      const r = await dispatcher.dispatch({ type: 'tool_use', id: `tu_${i}`, name: 'read_file', input: input as Record<string, unknown> }, ctx);
      expect(r.failed, JSON.stringify(input)).toBe(true);
      expect(r.result.is_error).toBe(true);
    }
    expect(bus.ofType('tool.input_invalid')).toHaveLength(shapes.length);
    expect(bus.ofType('tool.called')).toHaveLength(0);
    const huge = await dispatcher.dispatch(call('x'.repeat(1_000_000), {}), ctx);
    expect(huge.result.content.length).toBeLessThan(2_000);
    expect(String(bus.ofType('tool.input_invalid').at(-1)!.payload.tool_name).length).toBeLessThanOrEqual(201);
    expectCatalogValid(bus.events);
  });

  it('refuses to build with two tools of the same name', () => {
    const t = createBuiltinTools()[0]!;
    expect(() => createToolDispatcher({ tools: [t, t], bus, logger: createMemoryLogger(), clock })).toThrow(/duplicate tool name/);
  });
});
