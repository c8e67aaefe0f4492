import { describe, expect, it } from 'vitest';
import { CostAwareLru } from './eviction.ts';

describe('CostAwareLru', () => {
  it('is plain LRU at cost scale 0', () => {
    const lru = new CostAwareLru(0);
    for (const id of ['a', 'b', 'c']) lru.touch({ id, cost: 1 });
    lru.touch({ id: 'a', cost: 1 });
    expect(lru.evict()).toBe('b');
    expect(lru.evict()).toBe('c');
    expect(lru.evict()).toBe('a');
    expect(lru.evict()).toBeUndefined();
  });
  it('keeps an expensive entry over cheaper, more recent ones, until it has aged out', () => {
    const lru = new CostAwareLru(100);
    lru.touch({ id: 'costly', cost: 0.05 }); // priority 5
    for (let i = 0; i < 3; i++) lru.touch({ id: `cheap${i}`, cost: 0.001 }); // priority ~0.1
    expect(lru.evict()).toBe('cheap0');
    expect(lru.evict()).toBe('cheap1');
    // New cheap entries arrive above the inflated floor; the costly one is still kept for now.
    lru.touch({ id: 'new', cost: 0.001 });
    expect(lru.evict()).toBe('cheap2');
    expect(lru.evict()).toBe('new');
    expect(lru.evict()).toBe('costly');
  });
  it('ages out an unused expensive entry as the floor rises', () => {
    const lru = new CostAwareLru(100);
    lru.touch({ id: 'costly', cost: 0.01 }); // priority 1
    let evictedCostly = false;
    for (let i = 0; i < 40 && !evictedCostly; i++) {
      lru.touch({ id: `c${i}`, cost: 0.05 }); // each newcomer sits 5 above the floor
      evictedCostly = lru.evict() === 'costly';
    }
    expect(evictedCostly).toBe(true);
  });
  it('refuses a negative scale', () => {
    expect(() => new CostAwareLru(-1)).toThrow(RangeError);
  });
});
