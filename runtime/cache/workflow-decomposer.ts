// WorkflowDecomposer (semantic-cache-phase2.md §8): splits a document workflow into steps that can be
// cached on their own, keyed "{document_id}:{step_type}:{intent}" (§8.3).

export type StepType = 'summarize' | 'extract' | 'classify' | 'answer' | 'compare';

export interface WorkflowStep {
  step_id: string;
  step_type: StepType;
  intent: string;
  document_id: string | null;
  input_text: string;
  /** "{document_id}:{step_type}:{intent}"; steps without a document are keyed by their normalised text. */
  cache_key: string;
  result: string | null;
}

const STOP = new Set(['the', 'a', 'an', 'of', 'in', 'on', 'for', 'to', 'and', 'or', 'is', 'are', 'what', 'which', 'how', 'does', 'do', 'please', 'me', 'about', 'this', 'that', 'it']);

/**
 * An order-insensitive intent: the sorted content words of `text`. Every content word counts: a cap
 * would let "notice period for the employer" and "... for the employee" share one key.
 */
export function extractIntent(text: string): string {
  const words = (text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).filter((w) => !STOP.has(w) && w.length > 1);
  return [...new Set(words)].sort().join('-') || 'general';
}

/** Sections of a document: blocks split on Markdown headings or blank lines, trimmed, empty ones dropped. */
export function extractDocumentSections(text: string): string[] {
  return text
    .split(/\n(?=#{1,6}\s)|\n\s*\n/)
    .map((s) => s.trim())
    .filter(Boolean);
}

const COMPARISON = /\b(?:compare|versus|vs\.?|difference between)\b/i;

function step(document_id: string | null, step_type: StepType, intent: string, input_text: string, n: number): WorkflowStep {
  const key = document_id ? `${document_id}:${step_type}:${intent}` : `query:${step_type}:${intent}`;
  return { step_id: `s${n}`, step_type, intent, document_id, input_text, cache_key: key, result: null };
}

/** Steps that summarise each document as a whole, so every question about it can reuse the summary. */
function overviews(ids: readonly string[]): WorkflowStep[] {
  return ids.map((id, i) => step(id, 'summarize', 'overview', id, i + 1));
}

/**
 * §8.4: a single question with no document is one answer step; with a document, summarise it then
 * answer from the summary; a multi-part question is one answer step per sub-question (after the
 * summary when there is a document); several documents ("A|B") are each summarised, then one step
 * compares them (or answers across them when the wording is no comparison).
 *
 * The summary is of the whole document (intent "overview"), not of the section a question touches: the
 * point of Tier 3 is that different questions share it, and the documents it serves are short.
 */
export function decompose(prompt: string, documentId: string | null = null): WorkflowStep[] {
  const text = prompt.trim();
  if (!text) throw new RangeError('decompose: the prompt must not be empty');
  const ids = documentId ? documentId.split('|').filter(Boolean) : [];
  if (ids.length > 1) {
    const last = step(documentId, COMPARISON.test(text) ? 'compare' : 'answer', extractIntent(text), text, ids.length + 1);
    return [...overviews(ids), last];
  }
  const parts = text
    .split(/(?<=\?)\s+|\n+|;\s+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  const first = overviews(ids);
  const answers = (parts.length > 1 ? parts : [text]).map((p, i) => step(documentId, 'answer', extractIntent(p), p, first.length + i + 1));
  return [...first, ...answers];
}
