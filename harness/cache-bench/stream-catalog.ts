// The query streams under a workloads directory, for `bench list` and `bench validate`.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { QueryStream } from './load-stream.ts';
import { STREAM_FILE } from './stream-file.ts';

/** Directories under `root` holding a stream.yaml, sorted by name (none when `root` is missing). */
export function queryStreamDirs(root: string): string[] {
  const abs = resolve(root);
  if (!existsSync(abs) || !statSync(abs).isDirectory()) return [];
  return readdirSync(abs)
    .filter((n) => existsSync(join(abs, n, STREAM_FILE)))
    .sort()
    .map((n) => join(abs, n));
}

/** One row of `bench list` for a stream. */
export interface StreamListRow {
  kind: 'query_stream';
  name: string;
  set: string;
  /** Queries asked (looked up), warm-up writes excluded. */
  queries: number;
  /** Written without a lookup before the asked ones (GPTCache's insert phase). */
  warm: number;
  /** Declared `expect: miss`: no tier may serve them. */
  must_miss: number;
  /** Document versions carried by the stream's queries (Tier 3). */
  documents: number;
  description: string;
}

export function streamListRow(s: QueryStream): StreamListRow {
  const asked = s.queries.filter((q) => !q.warm);
  return {
    kind: 'query_stream',
    name: s.name,
    set: s.set,
    queries: asked.length,
    warm: s.queries.length - asked.length,
    must_miss: asked.filter((q) => q.expect === 'miss').length,
    documents: s.documents.size,
    description: s.description.trim(),
  };
}

/** The streams as aligned columns, each description folded underneath by `fold`. */
export function renderStreamList(rows: readonly StreamListRow[], fold: (text: string) => string): string {
  const head = ['stream', 'set', 'queries', 'must-miss', 'documents'];
  const cells = rows.map((r) => [r.name, r.set, `${r.queries}${r.warm ? ` (+${r.warm} warm)` : ''}`, String(r.must_miss), r.documents ? String(r.documents) : '-']);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((v, i) => (i >= 2 ? v.padStart(widths[i]!) : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const out = [line(head)];
  rows.forEach((r, i) => {
    out.push(line(cells[i]!));
    out.push(fold(`    ${r.description.replace(/\s+/g, ' ')}`));
  });
  return out.join('\n');
}
