// Top-K selection in O(n log k): a binary heap of at most k items whose root is the worst kept item,
// so a candidate is one comparison when it cannot enter. (Sorting all n, or insertion into a sorted
// array when k is large, is what made the first v2 K-NN scale badly.)

/** Keeps the k best items offered under `compare` (negative: a ranks before b). */
export interface BoundedTopK<T> {
  readonly size: number;
  /** The worst item kept, once k are kept; undefined before. */
  readonly worst: T | undefined;
  offer(item: T): void;
  /** The kept items, best first. */
  sorted(): T[];
}

/** Creates an empty selector of the `k` best (k ≥ 0). */
export function createBoundedTopK<T>(k: number, compare: (a: T, b: T) => number): BoundedTopK<T> {
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`k must be a whole number >= 0, got ${k}`);
  const heap: T[] = [];
  // Heap order: a parent ranks after (is worse than) its children.
  const worse = (i: number, j: number) => compare(heap[i]!, heap[j]!) > 0;
  const swap = (i: number, j: number) => {
    const t = heap[i]!;
    heap[i] = heap[j]!;
    heap[j] = t;
  };
  function up(i: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!worse(i, p)) return;
      swap(i, p);
      i = p;
    }
  }
  function down(i: number): void {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && worse(l, m)) m = l;
      if (r < heap.length && worse(r, m)) m = r;
      if (m === i) return;
      swap(i, m);
      i = m;
    }
  }
  return {
    get size() {
      return heap.length;
    },
    get worst() {
      return heap.length === k && k > 0 ? heap[0] : undefined;
    },
    offer(item) {
      if (k === 0) return;
      if (heap.length < k) {
        heap.push(item);
        up(heap.length - 1);
      } else if (compare(item, heap[0]!) < 0) {
        heap[0] = item;
        down(0);
      }
    },
    sorted: () => [...heap].sort(compare),
  };
}
