// LRU with cost awareness (GreedyDual): an entry's priority is the clock value L when it was last used
// plus its recompute cost scaled to the clock. Eviction removes the lowest priority and advances L to
// it, so cheap stale entries go first, an expensive entry survives a few more misses, and anything
// unused long enough ages out whatever it cost.

export interface EvictionCandidate {
  id: string;
  /** The recompute cost in USD (a float is fine here: it only orders entries). */
  cost: number;
}

export class CostAwareLru {
  private inflation = 0;
  private readonly priority = new Map<string, number>();

  /**
   * @param costScale how much one USD of recompute cost counts against recency; 0 is plain LRU.
   */
  constructor(private readonly costScale = 100) {
    if (!(costScale >= 0)) throw new RangeError(`costScale must be >= 0, got ${costScale}`);
  }

  /** Marks `c` used now (insert or hit). Each touch also ticks the clock so recency orders ties. */
  touch(c: EvictionCandidate): void {
    this.inflation += 1e-9;
    this.priority.set(c.id, this.inflation + c.cost * this.costScale);
  }

  remove(id: string): void {
    this.priority.delete(id);
  }

  get size(): number {
    return this.priority.size;
  }

  /** Picks and forgets the entry to evict; undefined when empty. O(n), run only when over capacity. */
  evict(): string | undefined {
    let victim: string | undefined;
    let low = Number.POSITIVE_INFINITY;
    for (const [id, p] of this.priority) {
      if (p < low) {
        low = p;
        victim = id;
      }
    }
    if (victim === undefined) return undefined;
    this.priority.delete(victim);
    this.inflation = Math.max(this.inflation, low);
    return victim;
  }
}
