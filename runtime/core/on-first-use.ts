// Values made when first read, not when their owner is built: a connection's statements prepared at their
// first run, so a reader that runs two of a store's twenty statements prepares two.

/** An object whose each property is `makers[key]()`, called at the property's first read and kept. */
export function onFirstUse<T extends Record<string, () => unknown>>(makers: T): { readonly [K in keyof T]: ReturnType<T[K]> } {
  const made = new Map<keyof T, unknown>();
  const out = {} as { [K in keyof T]: ReturnType<T[K]> };
  for (const key of Object.keys(makers) as (keyof T)[]) {
    Object.defineProperty(out, key, {
      enumerable: true,
      get() {
        if (!made.has(key)) made.set(key, makers[key]!());
        return made.get(key);
      },
    });
  }
  return out;
}
