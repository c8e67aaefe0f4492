import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkOutcome, gatedScore, outcomeFromScore } from './gate.ts';

describe('the check gate (issue 11 item 1)', () => {
  it('gatedScore keeps solved reps in [0.5, 1] and unsolved ones in [0, 0.49], monotone in the heuristic (property)', () => {
    const unit = fc.double({ min: 0, max: 1, noNaN: true });
    fc.assert(
      fc.property(unit, unit, (h1, h2) => {
        expect(gatedScore(true, h1)).toBeGreaterThanOrEqual(0.5);
        expect(gatedScore(true, h1)).toBeLessThanOrEqual(1);
        expect(gatedScore(false, h1)).toBeGreaterThanOrEqual(0);
        expect(gatedScore(false, h1)).toBeLessThan(0.5);
        if (h1 <= h2) {
          expect(gatedScore(true, h1)).toBeLessThanOrEqual(gatedScore(true, h2));
          expect(gatedScore(false, h1)).toBeLessThanOrEqual(gatedScore(false, h2));
        }
      }),
    );
  });

  it('rejects a heuristic outside [0,1]', () => {
    expect(() => gatedScore(true, 1.2)).toThrow(/\[0,1\]/);
    expect(() => gatedScore(false, Number.NaN)).toThrow(/\[0,1\]/);
  });

  it('solved iff the check ran and passed; a timeout or a check that could not start is check_error; a rep that never got there is not_reached', () => {
    const ran = { hasCheck: true, reached: true, checkError: null };
    expect(checkOutcome({ ...ran, check: { passed: true, timed_out: false } })).toBe('solved');
    expect(checkOutcome({ ...ran, check: { passed: false, timed_out: false } })).toBe('unsolved');
    expect(checkOutcome({ ...ran, check: { passed: false, timed_out: true } })).toBe('check_error');
    expect(checkOutcome({ ...ran, check: null, checkError: 'bwrap: permission denied' })).toBe('check_error');
    expect(checkOutcome({ hasCheck: true, reached: false, check: null, checkError: null })).toBe('not_reached');
    // Even a check that somehow passed after an interrupted rep does not count.
    expect(checkOutcome({ hasCheck: true, reached: false, check: { passed: true, timed_out: false }, checkError: null })).toBe('not_reached');
    expect(checkOutcome({ hasCheck: false, reached: true, check: null, checkError: null })).toBeNull();
  });

  it('without a check, solved means a heuristic score of 0.5 or more', () => {
    expect(outcomeFromScore(0.5)).toBe('solved');
    expect(outcomeFromScore(0.4999)).toBe('unsolved');
    expect(outcomeFromScore(null)).toBe('unsolved');
  });
});
