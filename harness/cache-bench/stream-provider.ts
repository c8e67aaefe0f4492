// The query stream's provider: it answers each query with its class's reference answer, with usage
// counted by the simulated provider's tokenizer, so a miss costs what the request and answer weigh and
// an exploration's label (cached answer = fresh answer?) is exact. Sim-only, labelled as such in reports.
import { newId } from '../../runtime/core/ids.ts';
import type { Provider } from '../../runtime/providers/provider.ts';
import { createTiktokenCounter } from '../../runtime/providers/sim/token-counter.ts';
import type { CanonicalRequest } from '../../runtime/types/request.ts';
import type { CanonicalResponse } from '../../runtime/types/response.ts';
import type { Query } from '../../schemas/types/cache-stream.ts';

/** Request metadata key that names the stream query being asked. */
export const QUERY_ID_KEY = 'cache_stream_query_id';

function requestText(r: CanonicalRequest): string {
  const parts = [r.system ?? '', r.system_volatile ?? '', JSON.stringify(r.tools)];
  for (const m of r.messages) for (const b of m.content) parts.push(b.type === 'text' ? b.text : b.type === 'tool_result' ? b.content : JSON.stringify(b.input));
  return parts.join('\n');
}

/** A provider that knows every stream query's reference answer. */
export function createStreamOracleProvider(queries: readonly Query[]): Provider & { calls: number } {
  const byId = new Map(queries.map((q) => [q.id, q]));
  const tokens = createTiktokenCounter();
  const provider = {
    name: 'sim',
    calls: 0,
    capabilities: () => ({ tools: true, vision: false, prompt_caching: false, system_prompt: true, context_window: 200_000 }),
    complete(request: CanonicalRequest): Promise<CanonicalResponse> {
      const id = request.metadata?.[QUERY_ID_KEY];
      const q = id === undefined ? undefined : byId.get(id);
      if (!q) return Promise.reject(new Error(`stream provider: request metadata ${QUERY_ID_KEY}=${String(id)} names no query of this stream`));
      provider.calls++;
      const input = tokens.count(requestText(request));
      const output = tokens.count(q.answer);
      return Promise.resolve({
        model: request.model,
        content: [{ type: 'text', text: q.answer }],
        stop_reason: 'end_turn',
        usage: { input_tokens: input, output_tokens: output, cached_input_tokens: 0, cache_creation_input_tokens: 0 },
        latency_ms: 200 + output * 10,
        request_id: `sim_${newId()}`,
      });
    },
  };
  return provider;
}
