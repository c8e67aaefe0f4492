import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { createProgress, formatEta } from './progress.ts';

const step = { workload: 'fix-a-bug-small', pass: 'A', rep: 1, reps: 3, turn: 2, turns: 3, spendUsd: new Decimal('0.01234'), done: 4, total: 9 };
const group = { workload: 'fix-a-bug-small', pass: 'A', reps: 3, meanScore: 0.8333, spendUsd: new Decimal('0.05'), done: 3, total: 9 };

describe('progress', () => {
  it('on a TTY shows pass, workload, rep, turn and spend so far, rewriting one line', () => {
    const out: string[] = [];
    const p = createProgress('tty', (s) => out.push(s));
    p.update(step);
    p.groupDone(group);
    p.clear();
    expect(out[0]).toBe('\r\x1b[K[5/9] A fix-a-bug-small rep 2/3 turn 2/3 spend $0.0123');
    expect(out[1]).toBe('\r\x1b[K');
  });

  it('on a TTY adds an ETA once reps have finished: mean wall time per rep x reps left', () => {
    let now = 0;
    const out: string[] = [];
    const p = createProgress('tty', (s) => out.push(s), () => now);
    p.update({ ...step, done: 0 });
    now = 60_000; // two reps in a minute
    p.update({ ...step, done: 2 });
    expect(out[1]).toMatch(/spend \$0\.0123 eta 3m30s$/); // 7 left x 30 s
  });

  it('without a TTY writes one plain line per finished workload and pass, with the spend so far', () => {
    const out: string[] = [];
    const p = createProgress('lines', (s) => out.push(s));
    p.update(step);
    p.groupDone(group);
    p.clear();
    expect(out).toEqual(['[3/9] pass A fix-a-bug-small: 3 rep(s) done, quality 0.83, spend so far $0.0500\n']);
  });

  it('writes nothing when off (--quiet), and the boolean form still works', () => {
    for (const mode of ['off', false] as const) {
      const out: string[] = [];
      const p = createProgress(mode, (s) => out.push(s));
      p.update(step);
      p.groupDone(group);
      p.clear();
      expect(out).toEqual([]);
    }
  });

  it('formats durations', () => {
    expect(formatEta(0)).toBe('0s');
    expect(formatEta(59_400)).toBe('59s');
    expect(formatEta(61_000)).toBe('1m01s');
    expect(formatEta(3_720_000)).toBe('1h02m');
  });
});
