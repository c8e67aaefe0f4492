// Loads a query-stream workload (workloads/cache-*/stream.yaml) and expands its data source into queries.
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { validatorFor } from '../../runtime/core/schemas.ts';
import { loadYamlValidated } from '../../runtime/core/yaml-document.ts';
import type { CacheStreamFile, Query } from '../../schemas/types/cache-stream.ts';
import { SetupError } from '../errors.ts';
import { checkInputSize } from '../input-limits.ts';
import { resolveStreamDocuments, type StreamDocuments } from './stream-documents.ts';
import { loadAuditedMerges, type StreamLabels } from './audited-labels.ts';
import { STREAM_FILE } from './stream-file.ts';

export { STREAM_FILE };

export interface QueryStream {
  name: string;
  set: CacheStreamFile['set'];
  description: string;
  credit: string | null;
  model: string;
  system: string | null;
  queries: Query[];
  dir: string;
  /** The data file named by `source.file` (absolute), when the stream reads one. */
  sourceFile?: string;
  /** Tier 3 documents by "id@version" (empty for streams without documents). */
  documents: StreamDocuments;
  /** The labels the classes follow: GPTCache's own, or with the audited merges applied. */
  labels: StreamLabels;
}

/** True when `dir` holds a query-stream workload. */
export function isQueryStreamDir(dir: string): boolean {
  return existsSync(join(dir, STREAM_FILE));
}

interface GptCachePair {
  origin: string;
  similar: string;
}

/**
 * GPTCache pairs → queries. Classes are pairs joined by a shared origin or similar text (the file repeats
 * 35 origins and 11 similars), so a repeated text is never counted as a wrong hit. As GPTCache's own replay
 * does, every origin is written to the cache first (warm, no lookup), then every similar is asked; the
 * reference answer names the class. `merges` (the audited labels) joins further groups of pair indices.
 */
export function gptCacheQueries(file: string, pairs: unknown, merges: readonly (readonly number[])[] = []): Query[] {
  if (!Array.isArray(pairs) || pairs.some((p) => typeof (p as GptCachePair)?.origin !== 'string' || typeof (p as GptCachePair)?.similar !== 'string'))
    throw new SetupError(`${file}: expected a JSON array of {"origin": string, "similar": string}`);
  const list = pairs as GptCachePair[];
  const parent = list.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const firstBy = new Map<string, number>();
  list.forEach((p, i) => {
    for (const t of [`o:${p.origin}`, `s:${p.similar}`]) {
      const j = firstBy.get(t);
      if (j === undefined) firstBy.set(t, i);
      else parent[find(i)] = find(j);
    }
  });
  for (const group of merges) for (const i of group.slice(1)) parent[find(i)] = find(group[0]!);
  const cls = (i: number) => `pair-${find(i)}`;
  const q = (kind: 'origin' | 'similar') =>
    list.map((p, i): Query => ({ id: `${kind}-${i}`, class: cls(i), text: p[kind], answer: `reference answer of ${cls(i)}`, ...(kind === 'origin' ? { warm: true } : {}) }));
  return [...q('origin'), ...q('similar')];
}

/**
 * Reads and validates `<dir>/stream.yaml`; every problem is a SetupError naming the file. `labels: 'audited'`
 * applies the source's `audited_labels` merges (an error when the stream has none).
 */
export function loadQueryStream(dir: string, labels: StreamLabels = 'gptcache'): QueryStream {
  const abs = resolve(dir);
  const file = join(abs, STREAM_FILE);
  if (!existsSync(file)) throw new SetupError(`${file}: no ${STREAM_FILE} in ${abs}`);
  checkInputSize(file, 'stream_file');
  let data: CacheStreamFile;
  try {
    data = loadYamlValidated(file, validatorFor<CacheStreamFile>('cache-stream.schema.json'));
  } catch (err) {
    throw new SetupError((err as Error).message);
  }
  if (data.name !== basename(abs)) throw new SetupError(`${file}: name '${data.name}' must equal the folder name '${basename(abs)}'`);
  if (!data.source && !data.queries?.length) throw new SetupError(`${file}: a stream needs 'source' or a non-empty 'queries' list`);
  const queries: Query[] = [];
  if (data.source) {
    const src = join(abs, data.source.file);
    if (!existsSync(src)) throw new SetupError(`${file}: source.file ${data.source.file} does not exist beside it`);
    checkInputSize(src, 'stream_source');
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(src, 'utf8'));
    } catch (err) {
      throw new SetupError(`${src}: not valid JSON: ${(err as Error).message}`);
    }
    let merges: number[][] = [];
    if (labels === 'audited') {
      if (!data.source.audited_labels) throw new SetupError(`${file}: --cache-labels audited needs source.audited_labels; this stream has none`);
      const auditFile = join(abs, data.source.audited_labels);
      if (!existsSync(auditFile)) throw new SetupError(`${file}: source.audited_labels ${data.source.audited_labels} does not exist beside it`);
      checkInputSize(auditFile, 'stream_file');
      gptCacheQueries(src, parsed); // validates the pairs before the merges index into them
      merges = loadAuditedMerges(auditFile, parsed as GptCachePair[]);
    }
    queries.push(...gptCacheQueries(src, parsed, merges));
  } else if (labels === 'audited') throw new SetupError(`${file}: --cache-labels audited needs a source with audited_labels; this stream has none`);
  queries.push(...(data.queries ?? []));
  const seen = new Set<string>();
  const answerOf = new Map<string, string>();
  for (const q of queries) {
    if (seen.has(q.id)) throw new SetupError(`${file}: query id '${q.id}' appears twice; ids must be unique`);
    seen.add(q.id);
    const a = answerOf.get(q.class);
    if (a !== undefined && a !== q.answer) throw new SetupError(`${file}: query '${q.id}' gives class '${q.class}' a different answer than an earlier query; one class, one answer`);
    answerOf.set(q.class, q.answer);
  }
  return {
    name: data.name,
    set: data.set,
    description: data.description,
    credit: data.credit ?? null,
    model: data.model ?? 'anthropic:claude-haiku-4-5',
    system: data.system ?? null,
    queries,
    dir: abs,
    ...(data.source ? { sourceFile: join(abs, data.source.file) } : {}),
    documents: resolveStreamDocuments(file, data),
    labels,
  };
}
