import { describe, expect, it } from 'vitest';
import { mapPool } from './pool.ts';

describe('mapPool', () => {
  it('keeps order, never exceeds the limit, and runs everything', async () => {
    let inFlight = 0;
    let peak = 0;
    const out = await mapPool([5, 1, 4, 2, 3], 2, async (x) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, x));
      inFlight -= 1;
      return x * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30]);
    expect(peak).toBe(2);
  });

  it('rejects with the first failure and starts nothing after it', async () => {
    const started: number[] = [];
    await expect(
      mapPool([1, 2, 3, 4], 1, async (x) => {
        started.push(x);
        if (x === 2) throw new Error('boom');
        return x;
      }),
    ).rejects.toThrow('boom');
    expect(started).toEqual([1, 2]);
  });
});
