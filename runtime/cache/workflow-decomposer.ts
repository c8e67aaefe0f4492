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

/** A short, order-insensitive intent: the sorted content words of `text` (at most 6). */
export function extractIntent(text: string): string {
  const words = (text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).filter((w) => !STOP.has(w) && w.length > 1);
  return [...new Set(words)].sort().slice(0, 6).join('-') || 'general';
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

/**
 * §8.4: a single question with no document is one answer step; with a document, summarise the relevant
 * part then answer from it; a multi-part question is one step per sub-question; a comparison of two
 * documents ("docA vs docB", document_id "A|B") summarises each, then compares.
 */
export function decompose(prompt: string, documentId: string | null = null): WorkflowStep[] {
  const text = prompt.trim();
  if (!text) throw new RangeError('decompose: the prompt must not be empty');
  if (documentId?.includes('|') && COMPARISON.test(text)) {
    const [a, b] = documentId.split('|') as [string, string];
    const intent = extractIntent(text);
    return [step(a, 'summarize', 'overview', text, 1), step(b, 'summarize', 'overview', text, 2), step(documentId, 'compare', intent, text, 3)];
  }
  const parts = text
    .split(/(?<=\?)\s+|\n+|;\s+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (parts.length > 1) return parts.map((p, i) => step(documentId, 'answer', extractIntent(p), p, i + 1));
  if (documentId) {
    const intent = extractIntent(text);
    return [step(documentId, 'summarize', intent, text, 1), step(documentId, 'answer', intent, text, 2)];
  }
  return [step(null, 'answer', extractIntent(text), text, 1)];
}
