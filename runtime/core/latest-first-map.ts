/**
 * A map whose most recently set entry lives outside the Map. Per-turn state that is set, read and deleted
 * before the next turn's is set (a routing sweep's decisions, a seeding's records) then makes no Map operation:
 * V8 reallocates a Map's table when a delete leaves it under a quarter full, so a Map going 1 → 0 → 1 entries
 * allocates on every delete and set. Answers get/has/delete/size as a Map holding the same entries would.
 */
export interface LatestFirstMap<K, V> {
  get(key: K): V | undefined;
  has(key: K): boolean;
  set(key: K, value: V): void;
  delete(key: K): boolean;
  readonly size: number;
}

/** Creates an empty map. */
export function createLatestFirstMap<K, V>(): LatestFirstMap<K, V> {
  let held = false;
  let latestKey: K | undefined;
  let latestValue: V | undefined;
  const rest = new Map<K, V>();
  return {
    get: (key) => (held && latestKey === key ? latestValue : rest.get(key)),
    has: (key) => (held && latestKey === key) || rest.has(key),
    set(key, value) {
      if (held && latestKey === key) {
        latestValue = value;
        return;
      }
      // The entry held so far joins the others; the key set now leaves them (it is held instead).
      if (held) rest.set(latestKey!, latestValue!);
      if (rest.size > 0) rest.delete(key);
      held = true;
      latestKey = key;
      latestValue = value;
    },
    delete(key) {
      if (held && latestKey === key) {
        held = false;
        latestKey = undefined;
        latestValue = undefined;
        return true;
      }
      return rest.size > 0 && rest.delete(key);
    },
    get size() {
      return rest.size + (held ? 1 : 0);
    },
  };
}
