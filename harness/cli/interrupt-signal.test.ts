import { describe, expect, it } from 'vitest';
import { interruptSignal } from './main.ts';

/** A stand-in for `process`: records handlers and exit codes, so signals can be sent without killing the test. */
function fakeProcess() {
  const handlers = new Map<string, () => void>();
  const exits: number[] = [];
  return {
    on: (name: string, f: () => void) => handlers.set(name, f),
    exit: (code: number) => exits.push(code),
    send: (name: string) => handlers.get(name)!(),
    exits,
  };
}

describe('interruptSignal', () => {
  it('SIGTERM stops the run as Ctrl-C does (the report is written), and a second one quits now with 143', () => {
    const p = fakeProcess();
    const said: string[] = [];
    const signal = interruptSignal((s) => said.push(s), p as unknown as NodeJS.Process);
    expect(signal.aborted).toBe(false);
    p.send('SIGTERM');
    expect(signal.aborted).toBe(true);
    expect(said.join('')).toMatch(/interrupted \(SIGTERM\): .*writing the report/);
    expect(p.exits).toEqual([]);
    p.send('SIGTERM');
    expect(p.exits).toEqual([143]);
  });

  it('Ctrl-C: first stops cleanly, second quits with 130', () => {
    const p = fakeProcess();
    const signal = interruptSignal(() => {}, p as unknown as NodeJS.Process);
    p.send('SIGINT');
    expect(signal.aborted).toBe(true);
    p.send('SIGINT');
    expect(p.exits).toEqual([130]);
  });
});
