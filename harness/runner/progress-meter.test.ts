import { describe, expect, it } from 'vitest';
import { createMeter } from './progress-meter.ts';

function clock() {
  let t = 0;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('createMeter', () => {
  it('on a terminal, rewrites one line at most once a second, with the count, the percent and an ETA', () => {
    const c = clock();
    const out: string[] = [];
    const m = createMeter({ label: 'matrix gsm8k', total: 100, mode: 'tty', write: (s) => out.push(s), nowMs: c.now });
    for (let i = 0; i < 10; i++) {
      c.advance(300);
      m.tick(5);
    }
    // 3 s in 300 ms steps: at most 3 writes.
    expect(out.length).toBeLessThanOrEqual(3);
    expect(out.length).toBeGreaterThan(0);
    const last = out.at(-1)!;
    expect(last.startsWith('\r\x1b[K')).toBe(true);
    expect(last.slice(4)).toMatch(/^matrix gsm8k: \d+\/100 \(\d+%\), eta \d+s$/);
    m.done();
    expect(out.at(-1)).toBe('\r\x1b[K');
  });

  it('in a log, a plain line at most every ten seconds; off writes nothing', () => {
    const c = clock();
    const out: string[] = [];
    const m = createMeter({ label: 'stream', total: 50, mode: 'lines', write: (s) => out.push(s), nowMs: c.now });
    for (let i = 0; i < 50; i++) {
      c.advance(1000);
      m.tick();
    }
    expect(out).toHaveLength(5);
    expect(out[0]).toBe('stream: 10/50 (20%), eta 40s\n');
    const quiet: string[] = [];
    const q = createMeter({ label: 'x', total: 5, mode: 'off', write: (s) => quiet.push(s), nowMs: c.now });
    c.advance(20_000);
    q.tick(5);
    q.done();
    expect(quiet).toEqual([]);
  });

  it('counts work found later in the total, so it never reads done before it is', () => {
    const c = clock();
    const out: string[] = [];
    const m = createMeter({ label: 'run', total: 45, mode: 'lines', write: (s) => out.push(s), nowMs: c.now });
    m.grow(15);
    c.advance(10_000);
    m.tick(45);
    expect(out).toEqual(['run: 45/60 (75%), eta 3s\n']);
  });
});
