// JSON.parse keeps the last of two equal keys in one object without a word. Where a repeated key means two
// records for one thing (an instance's result given twice), the repeat must be found in the text itself:
// one pass over it, holding the keys of the objects checked and a frame per open container.

/** A key given twice in one object, where the object is (a path like `a.b[2].c`) and the lines of both. */
export interface DuplicateKey {
  path: string;
  key: string;
  /** 1-based line of the repeat. */
  line: number;
  /** 1-based line of the first occurrence. */
  firstLine: number;
}

type Frame = { kind: 'object'; path: string; keys: Map<string, number> | null; key: string; expectKey: boolean } | { kind: 'array'; path: string; index: number };

/** The path of the value about to start inside `top` (the root when there is no frame). */
function childPath(top: Frame | undefined): string {
  if (!top) return '';
  if (top.kind === 'array') return `${top.path}[${top.index}]`;
  return top.path === '' ? top.key : `${top.path}.${top.key}`;
}

/** The end (index of the closing quote) of the string whose opening quote is at `i`. */
function stringEnd(text: string, i: number): number {
  let j = i;
  for (;;) {
    j = text.indexOf('"', j + 1);
    if (j < 0) throw new SyntaxError(`unterminated string at offset ${i}`);
    let backslashes = 0;
    while (text.charCodeAt(j - 1 - backslashes) === 92) backslashes++;
    if (backslashes % 2 === 0) return j;
  }
}

const DELIMITER = /[\s,\]}]/g;

/**
 * The first key given twice in one object of `text`, among the objects whose path `check` accepts (every
 * object by default); null when there is none. `text` must be valid JSON (parse it first): this is a scan
 * for what the parser hides, not a validator.
 */
export function firstDuplicateKey(text: string, check: (path: string) => boolean = () => true): DuplicateKey | null {
  const stack: Frame[] = [];
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const top = stack.at(-1);
    if (c === '\n') line++;
    else if (c === '"') {
      const end = stringEnd(text, i);
      if (top?.kind === 'object' && top.expectKey) {
        const raw = text.slice(i, end + 1);
        const key = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        const first = top.keys?.get(key);
        if (first !== undefined) return { path: top.path, key, line, firstLine: first };
        top.keys?.set(key, line);
        top.key = key;
        top.expectKey = false;
      }
      i = end;
    } else if (c === '{') {
      const path = childPath(top);
      stack.push({ kind: 'object', path, keys: check(path) ? new Map() : null, key: '', expectKey: true });
    } else if (c === '[') stack.push({ kind: 'array', path: childPath(top), index: 0 });
    else if (c === '}' || c === ']') stack.pop();
    else if (c === ',') {
      if (top?.kind === 'object') top.expectKey = true;
      else if (top) top.index++;
    } else if (c !== ':' && c !== ' ' && c !== '\t' && c !== '\r') {
      // A number, true, false or null: skip to its end.
      DELIMITER.lastIndex = i;
      const m = DELIMITER.exec(text);
      i = (m ? m.index : text.length) - 1;
    }
  }
  return null;
}
