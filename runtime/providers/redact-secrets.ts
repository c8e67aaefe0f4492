// Apart from errors.ts so the readers of a trace (the evaluator, analyze) redact without loading the provider SDKs.

// Key shapes: Anthropic `sk-ant-...`, OpenAI `sk-...`/`sk-proj-...` (masked ones too), bearer tokens, URL credentials.
const SECRET_PATTERNS: readonly RegExp[] = [
  /\bsk-[A-Za-z0-9_*-]{4,}/g,
  /\b(bearer)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /(x-api-key["']?\s*[:=]\s*["']?)[^\s"',}]+/gi,
  /(\/\/)[^/\s:@]+:[^/\s@]+@/g,
];

/** Removes anything that looks like a credential, and each exact `secrets` value, from text bound for logs or the trace. */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('[REDACTED]');
  out = out.replace(SECRET_PATTERNS[0]!, '[REDACTED]');
  out = out.replace(SECRET_PATTERNS[1]!, '$1 [REDACTED]');
  out = out.replace(SECRET_PATTERNS[2]!, '$1[REDACTED]');
  out = out.replace(SECRET_PATTERNS[3]!, '$1[REDACTED]@');
  return out;
}
