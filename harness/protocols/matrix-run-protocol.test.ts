import { describe, expect, it } from 'vitest';
import { InterruptedError } from '../errors.ts';
import { interruptible } from './matrix-run-protocol.ts';

describe('interruptible (the matrix run hears Ctrl-C and SIGTERM)', () => {
  it('counts every decision, looks at the signal every 1,000, and stops the run at the first look after an abort', async () => {
    const ac = new AbortController();
    let ticked = 0;
    const onRouted = interruptible(ac.signal, (n) => (ticked += n));
    for (let i = 0; i < 999; i++) await onRouted(1);
    ac.abort();
    // An abort between two looks lets the decisions up to the next look through.
    await expect(onRouted(1)).rejects.toBeInstanceOf(InterruptedError);
    expect(ticked).toBe(1000);
  });

  it('a signal that fires while the run computes is heard: the look yields to the event loop first', async () => {
    const ac = new AbortController();
    const onRouted = interruptible(ac.signal, () => {});
    // The abort is queued as a macrotask, as a signal handler is; only a real yield lets it run before the check.
    setImmediate(() => ac.abort());
    await expect(onRouted(1000)).rejects.toThrow(/none was written/);
  });

  it('without a signal, or without an abort, it only counts', async () => {
    let ticked = 0;
    await interruptible(undefined, (n) => (ticked += n))(5000);
    await interruptible(new AbortController().signal, (n) => (ticked += n))(5000);
    expect(ticked).toBe(10_000);
  });
});
