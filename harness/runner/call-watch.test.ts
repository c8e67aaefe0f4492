import { describe, expect, it } from 'vitest';
import { ProviderError, type Provider } from '../../runtime/providers/provider.ts';
import type { CanonicalRequest } from '../../runtime/types/request.ts';
import type { CanonicalResponse } from '../../runtime/types/response.ts';
import type { ToolDispatcher } from '../../runtime/tools/index.ts';
import { createCallWatch, watchProvider, watchTools, type WatchTimers } from './call-watch.ts';

/** A clock moved by hand and a timer that fires when the clock passes its next tick. */
function manualTimers() {
  let now = 1_000_000;
  let timer: { ms: number; next: number; tick: () => void } | null = null;
  let started = 0;
  const timers: WatchTimers = {
    nowMs: () => now,
    every(ms, tick) {
      started += 1;
      const t = { ms, next: now + ms, tick };
      timer = t;
      return { stop: () => void (timer === t && (timer = null)) };
    },
  };
  return {
    timers,
    running: () => timer !== null,
    started: () => started,
    advance(ms: number) {
      const end = now + ms;
      while (timer && timer.next <= end) {
        now = timer.next;
        timer.next += timer.ms;
        timer.tick();
      }
      now = end;
    },
  };
}

/** A provider whose calls wait until the test answers them. */
function heldProvider() {
  const pending: ((r: CanonicalResponse) => void)[] = [];
  const provider: Provider = {
    name: 'anthropic',
    capabilities: () => ({ tools: true, vision: false, prompt_caching: true, system_prompt: true, context_window: 200_000 }),
    complete: () => new Promise<CanonicalResponse>((resolve) => pending.push(resolve)),
  };
  return { provider, answerAll: () => pending.splice(0).forEach((r) => r({} as CanonicalResponse)) };
}

const request = (model: string) => ({ model }) as CanonicalRequest;
const settle = () => new Promise((r) => setImmediate(r));

describe('call watch: a call that keeps the run waiting is shown, never silent', () => {
  it('in a log: nothing for the first half minute, then a line every half minute naming the rep, the model, the wait and the timeout', async () => {
    const t = manualTimers();
    const out: string[] = [];
    const watch = createCallWatch({ mode: 'lines', write: (s) => out.push(s), requestTimeoutMs: 600_000, timers: t.timers });
    const held = heldProvider();
    const call = watchProvider(held.provider, watch, 'pass C fix-a-bug-small rep 2').complete(request('anthropic:claude-haiku-4-5'));
    t.advance(29_000);
    expect(out).toEqual([]);
    t.advance(1_000);
    expect(out).toEqual(['pass C fix-a-bug-small rep 2: still waiting for anthropic:claude-haiku-4-5, 30 s so far (each attempt gives up after 10 min: --request-timeout)\n']);
    t.advance(29_000);
    expect(out).toHaveLength(1);
    t.advance(1_000);
    expect(out[1]).toContain(', 60 s so far');
    held.answerAll();
    await call;
    await settle();
    // Answered: the timer is gone, and nothing more is written however long the run goes on.
    expect(t.running()).toBe(false);
    t.advance(120_000);
    expect(out).toHaveLength(2);
  });

  it('on a terminal: after five seconds the line counts the longest wait each second, naming the others in flight', () => {
    const t = manualTimers();
    const out: string[] = [];
    const watch = createCallWatch({ mode: 'tty', write: (s) => out.push(s), requestTimeoutMs: 600_000, timers: t.timers });
    const held = heldProvider();
    void watchProvider(held.provider, watch, 'pass A fix-a-bug-small rep 1').complete(request('anthropic:claude-haiku-4-5'));
    t.advance(2_000);
    void watchProvider(held.provider, watch, 'pass B fix-a-bug-small rep 1').complete(request('anthropic:claude-sonnet-4-6'));
    t.advance(2_000);
    expect(out).toEqual([]);
    t.advance(1_000);
    t.advance(1_000);
    expect(out).toEqual(['\r\x1b[Kpass A fix-a-bug-small rep 1: waiting for anthropic:claude-haiku-4-5, 5 s (+1 more in flight)', '\r\x1b[Kpass A fix-a-bug-small rep 1: waiting for anthropic:claude-haiku-4-5, 6 s (+1 more in flight)']);
    // One timer for all the calls in flight.
    expect(t.started()).toBe(1);
    held.answerAll();
  });

  it('shows each retry a real provider makes, with the failure, which retry and the wait', () => {
    const out: string[] = [];
    const lines = createCallWatch({ mode: 'lines', write: (s) => out.push(s), requestTimeoutMs: 1000 });
    lines.retried({ error: new ProviderError('anthropic: network failure: Request timed out.', 'network'), retry: 1, maxRetries: 4, waitMs: 640 });
    expect(out).toEqual(['anthropic: network failure: Request timed out; retry 1 of 4 in 0.6 s\n']);
    const tty: string[] = [];
    createCallWatch({ mode: 'tty', write: (s) => tty.push(s), requestTimeoutMs: 1000 }).retried({ error: new ProviderError('openai: server error (HTTP 503)', 'server_error'), retry: 2, maxRetries: 2, waitMs: 12_500 });
    // Above the progress line, which the next update redraws.
    expect(tty).toEqual(['\r\x1b[Kopenai: server error (HTTP 503); retry 2 of 2 in 12 s\n']);
  });

  it('a call that fails is no longer watched, and the failure reaches the caller unchanged', async () => {
    const t = manualTimers();
    const out: string[] = [];
    const watch = createCallWatch({ mode: 'lines', write: (s) => out.push(s), requestTimeoutMs: null, timers: t.timers });
    const failing: Provider = { ...heldProvider().provider, complete: () => Promise.reject(new ProviderError('anthropic: authentication failed', 'auth')) };
    await expect(watchProvider(failing, watch, 'A w rep 1').complete(request('m'))).rejects.toMatchObject({ errorClass: 'auth' });
    expect(t.running()).toBe(false);
    t.advance(60_000);
    expect(out).toEqual([]);
  });

  it('a tool or a hidden check that runs for minutes is shown the same way, without a provider timeout', async () => {
    const t = manualTimers();
    const out: string[] = [];
    const watch = createCallWatch({ mode: 'lines', write: (s) => out.push(s), requestTimeoutMs: 600_000, timers: t.timers });
    let finish = (): void => {};
    const tools: ToolDispatcher = { specs: () => [], dispatch: () => new Promise((resolve) => (finish = () => resolve({ content: 'done' } as never))) };
    const running = watchTools(tools, watch, 'pass A w rep 1').dispatch({ type: 'tool_use', id: 't1', name: 'run_shell', input: { command: 'sleep 600' } }, {} as never);
    let checkDone = (): void => {};
    const check = watch.track('pass A w rep 1', 'running the hidden check', () => new Promise<void>((resolve) => (checkDone = resolve)));
    t.advance(30_000);
    expect(out).toEqual(['pass A w rep 1: still running tool run_shell, 30 s so far\n', 'pass A w rep 1: still running the hidden check, 30 s so far\n']);
    finish();
    checkDone();
    await running;
    await check;
    expect(t.running()).toBe(false);
  });

  it('--quiet: the provider is handed back as it is and nothing is ever written', () => {
    const out: string[] = [];
    const watch = createCallWatch({ mode: 'off', write: (s) => out.push(s), requestTimeoutMs: 1000 });
    const held = heldProvider();
    expect(watchProvider(held.provider, watch, 'A w rep 1')).toBe(held.provider);
    const tools: ToolDispatcher = { specs: () => [], dispatch: async () => ({}) as never };
    expect(watchTools(tools, watch, 'A w rep 1')).toBe(tools);
    watch.retried({ error: new ProviderError('x', 'network'), retry: 1, maxRetries: 1, waitMs: 1 });
    expect(out).toEqual([]);
  });
});
