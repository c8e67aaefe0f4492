// Values made when first read, not when their owner is built: a connection's statements prepared at their
// first run, so a reader that runs two of a store's twenty statements prepares two.

/**
 * An object whose each property is `makers[key]()`, called at the property's first read and kept: the getter then
 * replaces itself with the value, so every later read is a plain property read (statements are read in hot loops).
 */
export function onFirstUse<T extends Record<string, () => unknown>>(makers: T): { readonly [K in keyof T]: ReturnType<T[K]> } {
  const out = {} as { [K in keyof T]: ReturnType<T[K]> };
  for (const key of Object.keys(makers) as (keyof T)[]) {
    Object.defineProperty(out, key, {
      enumerable: true,
      configurable: true,
      get() {
        const value = makers[key]!();
        Object.defineProperty(out, key, { value, enumerable: true, writable: false, configurable: false });
        return value;
      },
    });
  }
  return out;
}
