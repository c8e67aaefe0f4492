import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';

/**
 * The canonical serialisation a seal hashes, made by this code from the values SQLite hands back (never
 * from SQLite's own text such as quote() or printf, which changes between SQLite versions).
 *
 * Version 2 (`metis-seal/2`), documented in docs/threat-model.md:
 * - `lp(x)` is x's byte length in decimal ASCII, a colon, then its bytes (UTF-8 for text).
 * - A value is one tag byte and a payload: NULL `n`; INTEGER `i` + lp(decimal, `-` for negatives);
 *   REAL `r` + lp(16 lowercase hex digits of its IEEE 754 binary64 bits, big-endian); TEXT `s` + lp(text);
 *   BLOB `b` + lp(bytes).
 * - A row is its values in column order; it enters the digest as the SHA-256 of that encoding, and a
 *   table's rows are taken in ascending order of those hashes (so rowids and insertion order do not count).
 * - The stream: `metis-seal/2\n`, then per table in ascending byte order of its name: `T` lp(name)
 *   lp(column count) lp(each column name), `N` lp(row count), then the sorted 32-byte row hashes;
 *   then `P` lp(what the seal binds besides, e.g. a pattern store's digest; empty when none).
 * - The digest is SHA-256 of the stream, or HMAC-SHA256 under a key; lowercase hex.
 */
export const SEAL_ENCODING = 'metis-seal/2';

/** A value as better-sqlite3 returns it with safe integers on. */
export type SqlValue = null | bigint | number | string | Buffer;

/** One table as the seal sees it: its name, its columns in order, and its rows. */
export interface SealTable {
  name: string;
  columns: readonly string[];
  rows: Iterable<readonly SqlValue[]>;
}

const lp = (b: Buffer): Buffer => Buffer.concat([Buffer.from(`${b.length}:`, 'ascii'), b]);
const lpText = (s: string): Buffer => lp(Buffer.from(s, 'utf8'));

/** One value's canonical bytes. */
export function encodeValue(v: SqlValue): Buffer {
  if (v === null) return Buffer.from('n', 'ascii');
  if (typeof v === 'bigint') return Buffer.concat([Buffer.from('i', 'ascii'), lpText(v.toString(10))]);
  if (typeof v === 'number') {
    // Only REAL values arrive as numbers: the reader turns safe integers on, so INTEGERs are bigints.
    const bits = Buffer.alloc(8);
    bits.writeDoubleBE(v);
    return Buffer.concat([Buffer.from('r', 'ascii'), lpText(bits.toString('hex'))]);
  }
  if (typeof v === 'string') return Buffer.concat([Buffer.from('s', 'ascii'), lpText(v)]);
  if (Buffer.isBuffer(v)) return Buffer.concat([Buffer.from('b', 'ascii'), lp(v)]);
  throw new TypeError(`seal: a value of type ${typeof v} is not an SQLite value`);
}

/** One row's canonical bytes: its values in column order. */
export function encodeRow(row: readonly SqlValue[]): Buffer {
  return Buffer.concat(row.map(encodeValue));
}

/** The digest of tables (any order given; sorted here by name) and of what the seal binds besides them. */
export function sealDigest(tables: Iterable<SealTable>, bound: string, key: Buffer | null): string {
  const h: Hash | Hmac = key ? createHmac('sha256', key) : createHash('sha256');
  h.update(`${SEAL_ENCODING}\n`, 'ascii');
  const sorted = [...tables].sort((a, b) => Buffer.compare(Buffer.from(a.name, 'utf8'), Buffer.from(b.name, 'utf8')));
  for (const t of sorted) {
    h.update(Buffer.concat([Buffer.from('T', 'ascii'), lpText(t.name), lpText(String(t.columns.length)), ...t.columns.map(lpText)]));
    const hashes: Buffer[] = [];
    for (const r of t.rows) hashes.push(createHash('sha256').update(encodeRow(r)).digest());
    hashes.sort(Buffer.compare);
    h.update(Buffer.concat([Buffer.from('N', 'ascii'), lpText(String(hashes.length))]));
    for (const x of hashes) h.update(x);
  }
  h.update(Buffer.concat([Buffer.from('P', 'ascii'), lpText(bound)]));
  return h.digest('hex');
}
