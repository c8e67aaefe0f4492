import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { formatAjvErrors, validatorFor } from '../core/schemas.ts';
import type { CanonicalRequest } from '../types/request.ts';
import type { JudgeVerdict } from '../../schemas/types/judge-verdict.ts';

export type { JudgeVerdict } from '../../schemas/types/judge-verdict.ts';

/** The judge's fixed instructions, `runtime/data/prompts/judge.md`. */
export const JUDGE_PROMPT_PATH = fileURLToPath(new URL('../data/prompts/judge.md', import.meta.url));

/** What the judge is shown about one subject (harness-and-runtime.md §5). */
export interface JudgeInput {
  task: string;
  finalResponse: string;
  signals: Record<string, unknown>;
}

/** Enough for a score, a confidence and three sentences; a long answer is a wrong answer. */
export const JUDGE_MAX_TOKENS = 400;
// Bounds the judge's input cost whatever an agent wrote; the head of a response carries the answer.
const MAX_SECTION_CHARS = 20_000;

let systemPrompt: string | undefined;

/** The judge's system prompt, read once per process. */
export function judgeSystemPrompt(): string {
  systemPrompt ??= readFileSync(JUDGE_PROMPT_PATH, 'utf8').trim();
  return systemPrompt;
}

const clip = (text: string): string => (text.length <= MAX_SECTION_CHARS ? text : `${text.slice(0, MAX_SECTION_CHARS)}\n[... ${text.length - MAX_SECTION_CHARS} more characters cut]`);

/** The canonical request asking `model` to grade one subject: fixed prompt, temperature 0, no tools. */
export function buildJudgeRequest(model: string, input: JudgeInput): CanonicalRequest {
  const text = [
    '<task>',
    clip(input.task),
    '</task>',
    '',
    '<final_response>',
    clip(input.finalResponse),
    '</final_response>',
    '',
    '<signals>',
    JSON.stringify(input.signals),
    '</signals>',
  ].join('\n');
  return {
    model,
    system: judgeSystemPrompt(),
    system_volatile: null,
    tools: [],
    messages: [{ role: 'user', content: [{ type: 'text', text }] }],
    temperature: 0,
    max_tokens: JUDGE_MAX_TOKENS,
  };
}

/** The judge's answer parsed and schema-checked, or why it could not be. */
export type ParsedJudgeAnswer = { ok: true; verdict: JudgeVerdict } | { ok: false; error: string };

/** The JSON candidates in an answer: the whole text, a fenced block, the outermost `{...}`. */
function candidates(text: string): string[] {
  const trimmed = text.trim();
  const out = [trimmed];
  const fence = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(trimmed);
  if (fence) out.push(fence[1]!.trim());
  const first = trimmed.indexOf('{');
  const last = trimmed.lastIndexOf('}');
  if (first >= 0 && last > first) out.push(trimmed.slice(first, last + 1));
  return out;
}

/**
 * Parses a judge's answer: one JSON object, bare or wrapped in prose or a code fence, then validated
 * against `schemas/judge-verdict.schema.json`. Nothing else is repaired.
 */
export function parseJudgeAnswer(text: string): ParsedJudgeAnswer {
  let value: unknown;
  let found = false;
  for (const c of candidates(text)) {
    try {
      value = JSON.parse(c);
    } catch {
      continue;
    }
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      found = true;
      break;
    }
  }
  if (!found) return { ok: false, error: `judge answer holds no JSON object: ${JSON.stringify(text.slice(0, 200))}` };
  const validate = validatorFor<JudgeVerdict>('judge-verdict.schema.json');
  if (!validate(value)) return { ok: false, error: `judge answer does not match judge-verdict.schema.json: ${formatAjvErrors(validate.errors).join('; ')}` };
  return { ok: true, verdict: value };
}
