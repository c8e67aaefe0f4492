// The Anthropic Messages wire format, for a loopback server: reply builders and a cache-emulating default.
import { startLoopbackServer, type LoopbackServer, type RecordedRequest, type ScriptedReply } from './loopback-server.ts';

/** Usage as the Messages API reports it (input_tokens excludes cache reads and writes). */
export interface AnthropicWireUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

let counter = 0;

/** A 200 Messages API response with the given content blocks. */
export function anthropicMessage(content: unknown[], stop_reason: string, usage: AnthropicWireUsage, model = 'claude-sonnet-4-6'): ScriptedReply {
  return {
    kind: 'json',
    body: {
      id: `msg_loopback_${++counter}`,
      type: 'message',
      role: 'assistant',
      model,
      content,
      stop_reason,
      stop_sequence: null,
      usage: { cache_creation_input_tokens: 0, cache_read_input_tokens: 0, ...usage },
    },
  };
}

const DEFAULT_USAGE: AnthropicWireUsage = { input_tokens: 10, output_tokens: 5 };

/** A text answer ending the turn. */
export function anthropicText(text: string, usage: AnthropicWireUsage = DEFAULT_USAGE): ScriptedReply {
  return anthropicMessage([{ type: 'text', text }], 'end_turn', usage);
}

/** A tool_use answer; wire ids default to `toolu_loopback_<n>`. */
export function anthropicToolUse(calls: { name: string; input: unknown; id?: string }[], opts: { text?: string; usage?: AnthropicWireUsage } = {}): ScriptedReply {
  const content = [
    ...(opts.text ? [{ type: 'text', text: opts.text }] : []),
    ...calls.map((c) => ({ type: 'tool_use', id: c.id ?? `toolu_loopback_${++counter}`, name: c.name, input: c.input })),
  ];
  return anthropicMessage(content, 'tool_use', opts.usage ?? DEFAULT_USAGE);
}

/** An error response in the Messages API shape: `{type:'error', error:{type, message}}`. */
export function anthropicError(status: number, type: string, message: string, headers: Record<string, string> = {}): ScriptedReply {
  return { kind: 'json', status, headers, body: { type: 'error', error: { type, message }, request_id: `req_loopback_${++counter}` } };
}

const tokens = (v: unknown): number => Math.ceil(JSON.stringify(v ?? null).length / 4);

interface WireBody {
  model?: string;
  system?: { text: string; cache_control?: unknown }[];
  tools?: { name: string; cache_control?: unknown }[];
  messages?: { role: string; content: { type: string }[] }[];
}

/**
 * The default answer: calls the first offered tool with `{text: 'contract'}` unless the last user
 * message holds tool results, else answers in text. Usage is ~4 chars per token over the body; the
 * prefix up to the last breakpoint is written on first sight and read afterwards, as the API does.
 */
function autoReply(): (request: RecordedRequest) => ScriptedReply {
  const seen = new Set<string>();
  return (request) => {
    const body = request.body as WireBody;
    const system = body.system ?? [];
    const tools = body.tools ?? [];
    const lastBreakpoint = system.map((b) => !!b.cache_control).lastIndexOf(true);
    const cachedSystem = system.slice(0, lastBreakpoint + 1);
    const hasBreakpoint = cachedSystem.length > 0 || tools.some((t) => t.cache_control);
    const prefix = JSON.stringify([tools, cachedSystem]);
    const prefixTokens = hasBreakpoint ? tokens(prefix) : 0;
    const total = tokens([tools, system, body.messages]);
    const read = seen.has(prefix) ? prefixTokens : 0;
    const written = prefixTokens - read;
    seen.add(prefix);
    const usage = (out: unknown): AnthropicWireUsage => ({
      input_tokens: total - read - written,
      output_tokens: tokens(out),
      cache_read_input_tokens: read,
      cache_creation_input_tokens: written,
    });
    const last = body.messages?.at(-1);
    const answeringTools = last?.content.some((b) => b.type === 'tool_result') ?? false;
    if (tools.length > 0 && !answeringTools) {
      const input = { text: 'contract' };
      return anthropicToolUse([{ name: tools[0]!.name, input }], { usage: usage(input) });
    }
    const text = answeringTools ? 'The tool returned: contract.' : 'Hello there.';
    return anthropicText(text, usage(text));
  };
}

/** A loopback server speaking POST /v1/messages; `baseURL` is the origin, as the Anthropic SDK expects. `respond` answers a request first when it returns a reply. */
export function startFakeAnthropic(respond?: (request: RecordedRequest) => ScriptedReply | undefined): Promise<LoopbackServer> {
  const auto = autoReply();
  return startLoopbackServer({ path: '/v1/messages', fallback: (r) => respond?.(r) ?? auto(r) });
}
