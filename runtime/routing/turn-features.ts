import { textMemo } from '../core/text-memo.ts';
import type { Message } from '../types/content.ts';

/** What the rule slot matches on besides the message text. */
export interface TurnFeatures {
  intent_tags: string[];
  file_extensions: string[];
}

/** Mechanical intent hints over the new user message (pattern-store.md §5.2 `intent_tags`). */
const INTENT_PATTERNS: readonly (readonly [string, RegExp])[] = [
  ['commit', /\b(commit|git)\b/i],
  ['refactor', /\b(refactor\w*|rename|extract|restructure)\b/i],
  ['architecture', /\b(architect\w*|design)\b/i],
  ['debug', /\b(debug\w*|bug|fix\w*|error|traceback|exception|failing|crash\w*)\b/i],
  ['doc', /\b(docs?|document\w*|readme|docstring|changelog)\b/i],
  ['test', /\b(tests?|testing|pytest|vitest|jest|unit test)\b/i],
];

// A path-like token ending in an extension: `src/app.py`, `README.md`, `config.test.ts`.
const FILE_TOKEN = /(?:^|[\s`'"(/])[\w.-]*\w\.([A-Za-z][A-Za-z0-9]{0,7})\b/g;

// A prompt is read once per text, not once per decision and per record (text-memo.ts); 16k texts of a few hundred bytes of answers.
const READINGS_KEPT = 16_384;

const extensionsOfText = (text: string): readonly string[] => [...new Set(Array.from(text.matchAll(FILE_TOKEN), (m) => `.${m[1]!.toLowerCase()}`))];
// The message as it is, and with a space in front (collectFileExtensions): two readings, each kept per text.
const extensionsOf = textMemo(extensionsOfText, READINGS_KEPT);
const spacedExtensionsOf = textMemo((text: string) => extensionsOfText(` ${text}`), READINGS_KEPT);

function extensionsIn(text: string, into: Set<string>): void {
  for (const e of extensionsOf(text)) into.add(e);
}

const intentTagsMemo = textMemo((text: string): readonly string[] => INTENT_PATTERNS.filter(([, re]) => re.test(text)).map(([tag]) => tag), READINGS_KEPT);

/** Intent tags whose regex matches `text`, in declaration order (the pattern fingerprint reuses them). */
export function intentTagsOf(text: string): string[] {
  return [...intentTagsMemo(text)];
}

/** Lowercase extensions (`.py`) of the file-like tokens in `text`, added to `into`. */
export function collectFileExtensions(text: string, into: Set<string>): void {
  for (const e of spacedExtensionsOf(text)) into.add(e);
}

/**
 * Default features for routing: intent tags from the new message; file extensions named in it or in
 * `path` arguments of earlier tool calls. The session may pass its own (e.g. the pattern fingerprint's).
 */
export function extractTurnFeatures(userMessage: string, history: readonly Message[]): TurnFeatures {
  const intent_tags = intentTagsOf(userMessage);
  const exts = new Set<string>();
  extensionsIn(userMessage, exts);
  for (const m of history)
    for (const b of m.content) if (b.type === 'tool_use' && typeof b.input.path === 'string') extensionsIn(` ${b.input.path}`, exts);
  return { intent_tags, file_extensions: [...exts].sort() };
}
