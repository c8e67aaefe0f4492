// Labelled similarities, bucketed in a Fenwick tree so "errors and trials at similarity >= s" is O(log n).

const BUCKETS = 2048;

/** The lowest similarity that falls in bucket `b`. */
function lowerEdgeOf(b: number): number {
  return (b / BUCKETS) * 2 - 1;
}

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
  // Plain per-bucket counts as well, for the top-down scan.
  private readonly bucketTrials = new Uint32Array(BUCKETS);
  private readonly bucketErrors = new Uint32Array(BUCKETS);
  private total = 0;
  private totalErrors = 0;
  /** Bumped on every record, so a reader can cache what it derived from the counts. */
  version = 0;

  record(similarity: number, correct: boolean): void {
    if (!Number.isFinite(similarity)) throw new RangeError(`similarity must be finite, got ${similarity}`);
    const b = bucketOf(similarity);
    this.trials.add(b, 1);
    this.bucketTrials[b]!++;
    this.total++;
    if (!correct) {
      this.errors.add(b, 1);
      this.bucketErrors[b]!++;
      this.totalErrors++;
    }
    this.version++;
  }

  /**
   * Visits the occupied buckets from the highest similarity down, each with the counts at or above its
   * lower edge; stops when `visit` returns false.
   */
  scanDown(visit: (lowerEdge: number, atOrAbove: LedgerCount) => boolean): void {
    let trials = 0;
    let errors = 0;
    for (let b = BUCKETS - 1; b >= 0 && trials < this.total; b--) {
      if (!this.bucketTrials[b]) continue;
      trials += this.bucketTrials[b]!;
      errors += this.bucketErrors[b]!;
      if (!visit(lowerEdgeOf(b), { trials, errors })) return;
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
