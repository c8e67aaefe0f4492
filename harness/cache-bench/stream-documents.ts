// The documents of a document-workflow stream (Tier 3): each version of a document once, and every
// query's `documents` refs resolved to one of them. A bad ref is a SetupError naming file and line.
import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument } from 'yaml';
import type { CacheStreamFile, Document } from '../../schemas/types/cache-stream.ts';
import { SetupError } from '../errors.ts';

/** Documents by "id@version". */
export type StreamDocuments = ReadonlyMap<string, Document>;

export const documentRef = (d: Pick<Document, 'id' | 'version'>) => `${d.id}@${d.version}`;

/** Checks the stream's documents and every query's refs to them; `file` is read again for the line of a problem. */
export function resolveStreamDocuments(file: string, data: CacheStreamFile): StreamDocuments {
  // Parsed again only to name the line of a problem, so a good stream is parsed once.
  const at = (path: (string | number)[]) => {
    const lines = new LineCounter();
    const doc = parseDocument(readFileSync(file, 'utf8'), { lineCounter: lines });
    const node = doc.getIn(path, true) as { range?: [number, number, number] } | undefined;
    return node?.range ? `${file}:${lines.linePos(node.range[0]).line}` : file;
  };
  const byRef = new Map<string, Document>();
  (data.documents ?? []).forEach((d, i) => {
    const ref = documentRef(d);
    if (byRef.has(ref)) throw new SetupError(`${at(['documents', i, 'version'])}: document ${ref} appears twice; an edit needs a higher version`);
    const same = [...byRef.values()].find((o) => o.id === d.id && o.text === d.text);
    if (same) throw new SetupError(`${at(['documents', i, 'text'])}: document ${ref} has the same text as ${documentRef(same)}; a new version must change the text`);
    byRef.set(ref, d);
  });
  (data.queries ?? []).forEach((q, i) =>
    (q.documents ?? []).forEach((ref, j) => {
      if (!byRef.has(ref)) {
        const known = [...byRef.keys()].join(', ') || '(none: the stream has no documents)';
        throw new SetupError(`${at(['queries', i, 'documents', j])}: query '${q.id}' refers to document '${ref}', which the stream does not define; defined: ${known}`);
      }
      if (q.documents!.indexOf(ref) !== j) throw new SetupError(`${at(['queries', i, 'documents', j])}: query '${q.id}' names document '${ref}' twice`);
      if (q.tool_result !== undefined || q.tools) throw new SetupError(`${at(['queries', i, 'documents'])}: query '${q.id}' carries documents and tools; a document question has no tools`);
    }),
  );
  return byRef;
}
