// The k-th largest of many numbers without sorting them or calling a comparator per item: the Tier 2
// index asks it of 10k lower bounds per query, where the generic top-k heap's closure calls showed.

/** The k-th largest of values[0..n-1] (1 ≤ k ≤ n), by a typed min-heap of the k largest seen so far. */
export function kthLargest(values: ArrayLike<number>, n: number, k: number, heap = new Float64Array(k)): number {
  if (!Number.isInteger(k) || k < 1 || k > n) throw new RangeError(`k must be a whole number in 1..${n}, got ${k}`);
  for (let i = 0; i < k; i++) {
    // Sift up: the root stays the smallest kept.
    let c = i;
    const v = values[i]!;
    while (c > 0) {
      const p = (c - 1) >> 1;
      if (!(heap[p]! > v)) break;
      heap[c] = heap[p]!;
      c = p;
    }
    heap[c] = v;
  }
  for (let i = k; i < n; i++) {
    const v = values[i]!;
    if (!(v > heap[0]!)) continue;
    // Replace the root and sift down.
    let c = 0;
    for (;;) {
      const l = 2 * c + 1;
      if (l >= k) break;
      const r = l + 1;
      const m = r < k && heap[r]! < heap[l]! ? r : l;
      if (!(heap[m]! < v)) break;
      heap[c] = heap[m]!;
      c = m;
    }
    heap[c] = v;
  }
  return heap[0]!;
}
