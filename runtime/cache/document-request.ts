// How a chat request carries documents for Tier 3: request metadata names them, and the last user
// message holds one text block per document (in that order) followed by the question. The model of a
// plain call sees the documents as text; the cache sees which document each block is.
import { createHash } from 'node:crypto';
import type { CanonicalRequest } from '../types/request.ts';

/** Request metadata: the ids of the documents the last user message carries, "|"-separated, in order. */
export const DOCUMENT_IDS_METADATA_KEY = 'cache_document_ids';

export interface CarriedDocument {
  id: string;
  text: string;
  /** First 16 hex digits of SHA-256 of the text: an edit is a new version, whatever the caller says. */
  version: string;
}

export interface DocumentRequest {
  documents: CarriedDocument[];
  question: string;
}

/** The content version of a document's text. */
export function documentVersion(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** A plain (non-document) request becomes one carrying `documents`: their texts go before the question. */
export function withDocuments(request: CanonicalRequest, documents: readonly { id: string; text: string }[]): CanonicalRequest {
  if (!documents.length) return request;
  for (const d of documents) if (!/^[^|@\s]+$/.test(d.id)) throw new RangeError(`document id '${d.id}' must be non-empty without '|', '@' or spaces`);
  const last = request.messages.at(-1);
  if (!last || last.role !== 'user') throw new RangeError('withDocuments: the request must end on a user message');
  const blocks = [...documents.map((d) => ({ type: 'text' as const, text: d.text })), ...last.content];
  return {
    ...request,
    messages: [...request.messages.slice(0, -1), { ...last, content: blocks }],
    metadata: { ...request.metadata, [DOCUMENT_IDS_METADATA_KEY]: documents.map((d) => d.id).join('|') },
  };
}

/**
 * The documents and the question of a request, or null when it carries none. A request that names
 * documents its last user message does not hold (too few text blocks) is malformed: RangeError.
 */
export function documentRequestOf(request: CanonicalRequest): DocumentRequest | null {
  const ids = request.metadata?.[DOCUMENT_IDS_METADATA_KEY];
  if (!ids) return null;
  const list = ids.split('|');
  const last = request.messages.at(-1);
  const texts = last?.role === 'user' ? last.content.filter((b) => b.type === 'text').map((b) => b.text) : [];
  if (list.some((id) => !id) || texts.length < list.length + 1)
    throw new RangeError(`request names documents '${ids}' but its last user message does not hold one text block per document and then the question`);
  return {
    documents: list.map((id, i) => ({ id, text: texts[i]!, version: documentVersion(texts[i]!) })),
    question: texts.slice(list.length).join(''),
  };
}
