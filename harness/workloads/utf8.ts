// Workload files must be UTF-8: a wrong encoding is refused with where it goes wrong, not decoded to U+FFFD.

/**
 * Byte offset of the first byte that does not start a well-formed UTF-8 sequence (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF, no truncated sequence), or null when all
 * of `bytes` is valid UTF-8.
 */
export function firstInvalidUtf8Offset(bytes: Uint8Array): number | null {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i += 1;
      continue;
    }
    // Length of the sequence and the allowed range of its second byte (the first continuation).
    let n: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) n = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      n = 3;
      if (b === 0xe0) lo = 0xa0; // overlong
      if (b === 0xed) hi = 0x9f; // surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      n = 4;
      if (b === 0xf0) lo = 0x90; // overlong
      if (b === 0xf4) hi = 0x8f; // above U+10FFFF
    } else return i;
    if (i + n > bytes.length) return i;
    const second = bytes[i + 1]!;
    if (second < lo || second > hi) return i;
    for (let k = 2; k < n; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return i;
    i += n;
  }
  return null;
}

/** 1-based line and column (in bytes) of a byte offset, for messages that point into a file. */
export function lineAndColumnOfByte(bytes: Uint8Array, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < bytes.length; i++) {
    if (bytes[i] === 0x0a) {
      line += 1;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}
