// The OpenAI Chat Completions wire format, for a loopback server: reply builders and a cache-emulating default.
import { startLoopbackServer, type LoopbackServer, type RecordedRequest, type ScriptedReply } from './loopback-server.ts';

/** Usage as Chat Completions reports it: prompt_tokens INCLUDES cached_tokens. */
export interface OpenAIWireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens?: number;
}

let counter = 0;

/** A 200 Chat Completions response with one choice. */
export function openaiCompletion(message: Record<string, unknown>, finish_reason: string, usage: OpenAIWireUsage | null, model = 'gpt-5'): ScriptedReply {
  return {
    kind: 'json',
    body: {
      id: `chatcmpl-loopback-${++counter}`,
      object: 'chat.completion',
      created: 1_700_000_000,
      model,
      choices: [{ index: 0, message: { role: 'assistant', refusal: null, ...message }, finish_reason, logprobs: null }],
      ...(usage
        ? {
            usage: {
              prompt_tokens: usage.prompt_tokens,
              completion_tokens: usage.completion_tokens,
              total_tokens: usage.prompt_tokens + usage.completion_tokens,
              prompt_tokens_details: { cached_tokens: usage.cached_tokens ?? 0 },
            },
          }
        : {}),
    },
  };
}

const DEFAULT_USAGE: OpenAIWireUsage = { prompt_tokens: 10, completion_tokens: 5 };

/** A text answer (`finish_reason: stop`). */
export function openaiText(text: string, usage: OpenAIWireUsage = DEFAULT_USAGE): ScriptedReply {
  return openaiCompletion({ content: text }, 'stop', usage);
}

/** A tool_calls answer; `arguments` is the raw text the model wrote (pass invalid JSON to test that path). */
export function openaiToolCalls(
  calls: { name: string; arguments: string; id?: string }[],
  opts: { text?: string; usage?: OpenAIWireUsage; finish_reason?: string } = {},
): ScriptedReply {
  const tool_calls = calls.map((c) => ({ id: c.id ?? `call_loopback_${++counter}`, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  return openaiCompletion({ content: opts.text ?? null, tool_calls }, opts.finish_reason ?? 'tool_calls', opts.usage ?? DEFAULT_USAGE);
}

/** An error response in the OpenAI shape: `{error:{message, type, param, code}}`. */
export function openaiError(status: number, message: string, opts: { type?: string; code?: string | null; headers?: Record<string, string> } = {}): ScriptedReply {
  return { kind: 'json', status, headers: opts.headers ?? {}, body: { error: { message, type: opts.type ?? 'invalid_request_error', param: null, code: opts.code ?? null } } };
}

const tokens = (v: unknown): number => Math.ceil(JSON.stringify(v ?? null).length / 4);

interface WireBody {
  messages?: { role: string; content?: unknown }[];
  tools?: { function: { name: string } }[];
}

/**
 * The default answer: calls the first offered tool with `{"text":"contract"}` unless the last
 * message is a tool result, else answers in text. Usage is ~4 chars per token; the prefix (system
 * message + tools) counts as cached from its second sighting, inside prompt_tokens as OpenAI reports it.
 */
function autoReply(): (request: RecordedRequest) => ScriptedReply {
  const seen = new Set<string>();
  return (request) => {
    const body = request.body as WireBody;
    const messages = body.messages ?? [];
    const tools = body.tools ?? [];
    const system = messages[0]?.role === 'system' ? [messages[0]] : [];
    const prefix = JSON.stringify([system, tools]);
    const total = tokens([messages, tools]);
    const cached = seen.has(prefix) ? tokens(prefix) : 0;
    seen.add(prefix);
    const usage = (out: unknown): OpenAIWireUsage => ({ prompt_tokens: total, completion_tokens: tokens(out), cached_tokens: cached });
    const answeringTools = messages.at(-1)?.role === 'tool';
    if (tools.length > 0 && !answeringTools) {
      const args = JSON.stringify({ text: 'contract' });
      return openaiToolCalls([{ name: tools[0]!.function.name, arguments: args }], { usage: usage(args) });
    }
    const text = answeringTools ? 'The tool returned: contract.' : 'Hello there.';
    return openaiText(text, usage(text));
  };
}

/** A loopback server speaking POST /v1/chat/completions; `baseURL` ends in `/v1`, as the OpenAI SDK expects. `respond` answers a request first when it returns a reply. */
export function startFakeOpenAI(respond?: (request: RecordedRequest) => ScriptedReply | undefined): Promise<LoopbackServer> {
  const auto = autoReply();
  return startLoopbackServer({ path: '/v1/chat/completions', basePath: '/v1', fallback: (r) => respond?.(r) ?? auto(r) });
}
