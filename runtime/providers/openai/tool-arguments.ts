// A Chat Completions tool call carries its input as JSON text the model wrote, which may not parse.

/**
 * Key under which a tool call's unusable arguments are kept. The canonical input is then
 * `{ [INVALID_ARGUMENTS_KEY]: rawText }` rather than `{}`: an empty input would pass validation for
 * a tool whose fields are all optional and run it with no arguments, and the raw text lets the
 * dispatcher say what was wrong and the next request resend the model's words unchanged.
 */
export const INVALID_ARGUMENTS_KEY = '__invalid_json_arguments';

/** Wire arguments → canonical input: a JSON object as is, empty text as `{}`, anything else kept raw under INVALID_ARGUMENTS_KEY. */
export function parseToolArguments(raw: unknown): Record<string, unknown> {
  // Some OpenAI-compatible servers send the object itself rather than its JSON text.
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) return raw as Record<string, unknown>;
  const text = typeof raw === 'string' ? raw : JSON.stringify(raw ?? '');
  // Servers differ on a call with no arguments: "", "{}" or nothing at all.
  if (text.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // not JSON: kept raw below
  }
  return { [INVALID_ARGUMENTS_KEY]: text };
}

/** The raw text of a tool call whose arguments were not a JSON object; undefined for a usable input. */
export function invalidToolArguments(input: Readonly<Record<string, unknown>>): string | undefined {
  const keys = Object.keys(input);
  const raw = input[INVALID_ARGUMENTS_KEY];
  return keys.length === 1 && typeof raw === 'string' ? raw : undefined;
}

/** Canonical input → wire arguments; an invalid call goes back exactly as the model wrote it. */
export function serializeToolArguments(input: Readonly<Record<string, unknown>>): string {
  return invalidToolArguments(input) ?? JSON.stringify(input);
}
