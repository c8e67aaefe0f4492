// Every line of a stdout rendering fits the width (issue 23 item 9), not only the tables: prose, key–value
// rows, notes, warnings and the banner wrap here. Tables come in already fitted (fit-table.ts) and pass through.

/** The narrowest room a continuation line keeps for its text, however deep the indent. */
const MIN_ROOM = 20;

/** Code points in `s`: its UTF-16 length when it holds no surrogate (every line is measured, most of them so). */
const length = (s: string) => (/[\uD800-\uDFFF]/.test(s) ? [...s].length : s.length);

/** Cuts a word longer than `room` into pieces of at most `room` characters. */
function cut(word: string, room: number): string[] {
  const chars = [...word];
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += room) out.push(chars.slice(i, i + room).join(''));
  return out;
}

/**
 * Wraps one line to `width` at spaces. Continuation lines hang under the first line's text (its indent plus
 * two, or under the value of a `key:   value` row), so a reader sees they belong together; a word longer than
 * the room is cut. A shell command (`npx …`) keeps working when pasted: each break ends in ` \`, and a cut
 * word continues at the start of the next line (the shell joins backslash-newline inside a word).
 */
export function wrapLine(line: string, width: number): string[] {
  if (length(line) <= width) return [line];
  const indent = /^\s*/.exec(line)![0];
  const body = line.slice(indent.length);
  const command = body.startsWith('npx ');
  const value = /^[^:]{1,60}:\s{2,}/.exec(body);
  const hang = Math.min(indent.length + (value ? value[0].length : 2), Math.max(0, width - MIN_ROOM));
  const lead = ' '.repeat(hang);
  const tail = command ? 2 : 0; // room for ` \`
  const out: string[] = [];
  // A row's key and its alignment stay as they are; only the value wraps.
  let current = indent + (value && length(indent + value[0]) < width - MIN_ROOM ? value[0] : '');
  let fresh = true;
  const room = () => width - tail - length(current);
  const push = () => {
    out.push(command ? `${current} \\` : current.trimEnd());
    current = lead;
    fresh = true;
  };
  for (const word of body.slice(current.length - indent.length).split(' ').filter((w) => w !== '')) {
    const sep = fresh ? '' : ' ';
    if (length(sep + word) <= room()) {
      current += sep + word;
      fresh = false;
      continue;
    }
    if (!fresh) push();
    if (length(word) <= room()) {
      current += word;
      fresh = false;
      continue;
    }
    // Longer than a whole line: cut it. A command's pieces join back in the shell, so they start at column 0.
    const pieces = cut(word, Math.max(1, command ? width - 1 : width - Math.max(length(current), hang)));
    if (command && current.trim() === '') current = '';
    pieces.forEach((p, i) => {
      if (i < pieces.length - 1) {
        out.push(command ? `${current}${p}\\` : `${current}${p}`);
        current = command ? '' : lead;
      } else {
        current += p;
        fresh = false;
      }
    });
  }
  out.push(command ? current : current.trimEnd());
  return out;
}

/** Every line of `text` wrapped to `width` (null: unchanged). */
export function fitLines(text: string, width: number | null): string {
  if (width === null) return text;
  return text
    .split('\n')
    .flatMap((l) => wrapLine(l, width))
    .join('\n');
}
