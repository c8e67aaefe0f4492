import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { createProgress } from './progress.ts';

const step = { workload: 'fix-a-bug-small', pass: 'A', rep: 1, reps: 3, turn: 2, turns: 3, spendUsd: new Decimal('0.01234'), done: 4, total: 9 };

describe('progress line', () => {
  it('on a TTY shows pass, workload, rep, turn and spend so far, rewriting one line', () => {
    const out: string[] = [];
    const p = createProgress(true, (s) => out.push(s));
    p.update(step);
    p.clear();
    expect(out[0]).toBe('\r\x1b[K[5/9] A fix-a-bug-small rep 2/3 turn 2/3 spend $0.0123');
    expect(out[1]).toBe('\r\x1b[K');
  });

  it('writes nothing when disabled (piped or --quiet)', () => {
    const out: string[] = [];
    const p = createProgress(false, (s) => out.push(s));
    p.update(step);
    p.clear();
    expect(out).toEqual([]);
  });
});
