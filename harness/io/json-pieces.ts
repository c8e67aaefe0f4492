// Indented JSON text in pieces rather than one string. V8 builds a string of two-byte characters for all of
// a JSON text after its first non-ASCII character, and copies it whole once more to write it: analyze's 1.27 MB
// report, with a handful of non-ASCII characters among its rep check outputs and headline, was 2.5 MB twice.
// In pieces only the few pieces that hold such a character are two-byte, and each piece is copied on its own.

/** How many levels are walked here before the rest of a value is left to JSON.stringify (the report's sections and their entries). */
const WALKED_LEVELS = 2;
/** A walked container of more members than this is cut into this many runs of members rather than a piece per member. */
const MAX_PIECES = 16;

/** A plain object or array without toJSON, whose text this module can lay out as JSON.stringify would. */
function isPlainContainer(v: object): boolean {
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(v)) return true;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** A value whose text, inside a walked container, is its own JSON.stringify at its depth (never left out, never "null" for undefined). */
function isSerialisedAlone(v: unknown): boolean {
  return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || (typeof v === 'object' && isPlainContainer(v));
}

/** JSON.stringify(v, null, 2) as it reads `depth` levels deep: each line after the first indented by 2·depth more spaces. */
function nestedText(v: unknown, depth: number): string {
  if (depth === 0 || v === null || typeof v !== 'object') return String(JSON.stringify(v, null, 2));
  // Wrapped in `depth` arrays, the value is laid out at its depth by JSON.stringify itself; the wrapping is cut off.
  let wrapped: unknown = v;
  for (let i = 0; i < depth; i++) wrapped = [wrapped];
  const text = JSON.stringify(wrapped, null, 2);
  let head = 0;
  let tail = 0;
  for (let i = 0; i < depth; i++) {
    head += 2 + 2 * (i + 1); // "[\n" and the next level's indent
    tail += 2 + 2 * i; // "\n", this level's indent and "]"
  }
  return text.slice(head, text.length - tail);
}

/** The text of a container `part` laid out `depth` levels deep with its brackets cut off: its members, each on its line, joined by commas. */
function membersText(part: unknown, depth: number): string {
  const text = nestedText(part, depth);
  return text.slice(2, text.length - 2 - 2 * depth); // "[\n" … "\n", the indent and "]"
}

/** Appends the pieces of `v` laid out `depth` levels deep to `out`. */
function addPieces(v: unknown, depth: number, out: string[]): void {
  if (depth >= WALKED_LEVELS || v === null || typeof v !== 'object' || !isPlainContainer(v)) {
    out.push(nestedText(v, depth));
    return;
  }
  const list = Array.isArray(v) ? (v as unknown[]) : null;
  const keys = list ? null : Object.keys(v);
  const values = list ?? keys!.map((k) => (v as Record<string, unknown>)[k]);
  // A member JSON.stringify would leave out or turn into null (undefined, a hole, a function, toJSON): the container is
  // left to it whole. Indexed, since `every` would skip a hole.
  for (let i = 0; i < values.length; i++)
    if (!isSerialisedAlone(values[i])) {
      out.push(nestedText(v, depth));
      return;
    }
  if (values.length === 0) {
    out.push(list ? '[]' : '{}');
    return;
  }
  out.push(list ? '[' : '{');
  if (values.length <= MAX_PIECES) {
    const indent = `\n${'  '.repeat(depth + 1)}`;
    for (let i = 0; i < values.length; i++) {
      out.push(i === 0 ? indent : `,${indent}`);
      if (keys) out.push(`${JSON.stringify(keys[i])}: `);
      addPieces(values[i], depth + 1, out);
    }
  } else {
    // Members in runs, each run one stringify: a piece per member of a long list would cost more than it saves.
    const size = Math.ceil(values.length / MAX_PIECES);
    for (let i = 0; i < values.length; i += size) {
      const part = list ? list.slice(i, i + size) : Object.fromEntries(keys!.slice(i, i + size).map((k, j) => [k, values[i + j]]));
      out.push(i === 0 ? '\n' : ',\n', membersText(part, depth));
    }
  }
  out.push(`\n${'  '.repeat(depth)}${list ? ']' : '}'}`);
}

/**
 * `JSON.stringify(value, null, 2)` in pieces whose concatenation is that text exactly ("undefined" where it gives
 * undefined); the top levels are laid out here, each value below them by JSON.stringify.
 */
export function indentedJsonPieces(value: unknown): string[] {
  const out: string[] = [];
  addPieces(value, 0, out);
  return out;
}
