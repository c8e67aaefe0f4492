// Labelled similarities, bucketed in a Fenwick tree so "errors and trials at similarity >= s" is O(log n).

const BUCKETS = 2048;

function bucketOf(similarity: number): number {
  const clamped = Math.min(1, Math.max(-1, similarity));
  return Math.min(BUCKETS - 1, Math.floor(((clamped + 1) / 2) * BUCKETS));
}

class Fenwick {
  private readonly tree = new Float64Array(BUCKETS + 1);
  add(i: number, v: number): void {
    for (let x = i + 1; x <= BUCKETS; x += x & -x) this.tree[x] = this.tree[x]! + v;
  }
  /** Sum of buckets [0, i]. */
  prefix(i: number): number {
    let s = 0;
    for (let x = i + 1; x > 0; x -= x & -x) s += this.tree[x]!;
    return s;
  }
}

/** Trials and errors observed at or above a similarity. */
export interface LedgerCount {
  trials: number;
  errors: number;
}

/** Labelled (similarity, correct) observations of would-be hits. */
export class SimilarityLedger {
  private readonly trials = new Fenwick();
  private readonly errors = new Fenwick();
  private total = 0;
  private totalErrors = 0;

  record(similarity: number, correct: boolean): void {
    if (!Number.isFinite(similarity)) throw new RangeError(`similarity must be finite, got ${similarity}`);
    const b = bucketOf(similarity);
    this.trials.add(b, 1);
    this.total++;
    if (!correct) {
      this.errors.add(b, 1);
      this.totalErrors++;
    }
  }

  /** Observations whose similarity is at least `similarity` (bucket resolution 1/1024). */
  atOrAbove(similarity: number): LedgerCount {
    const below = bucketOf(similarity) - 1;
    const tBelow = below >= 0 ? this.trials.prefix(below) : 0;
    const eBelow = below >= 0 ? this.errors.prefix(below) : 0;
    return { trials: this.total - tBelow, errors: this.totalErrors - eBelow };
  }

  get size(): number {
    return this.total;
  }
}
