// Sorting the handful of options one routing decision ranks (a model per pool entry), a million times a
// matrix run: Array.prototype.sort allocates a work area on every call (about 0.8 KB in Node 20), which made
// it the run's largest allocation site. A stable insertion sort orders them as the built-in stable sort does.

/** Sorts `xs` in place by `cmp` and returns it; stable, as Array.prototype.sort is. For short arrays. */
export function sortFew<T>(xs: T[], cmp: (a: T, b: T) => number): T[] {
  for (let i = 1; i < xs.length; i++) {
    const x = xs[i]!;
    let j = i;
    for (; j > 0 && cmp(xs[j - 1]!, x) > 0; j--) xs[j] = xs[j - 1]!;
    xs[j] = x;
  }
  return xs;
}
