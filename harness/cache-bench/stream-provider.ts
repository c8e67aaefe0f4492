// The query stream's provider: it answers each query with its class's reference answer, with usage
// counted by the simulated provider's tokenizer, so a miss costs what the request and answer weigh and
// an exploration's label (cached answer = fresh answer?) is exact. Sim-only, labelled as such in reports.
import { newId } from '../../runtime/core/ids.ts';
import type { Provider } from '../../runtime/providers/provider.ts';
import { createTiktokenCounter } from '../../runtime/providers/sim/token-counter.ts';
import type { CanonicalRequest } from '../../runtime/types/request.ts';
import type { CanonicalResponse } from '../../runtime/types/response.ts';
import { STEP_DOCUMENTS_METADATA_KEY, STEP_TYPE_METADATA_KEY } from '../../runtime/cache/document-workflow.ts';
import type { Query } from '../../schemas/types/cache-stream.ts';
import type { StreamDocuments } from './stream-documents.ts';

/** Request metadata key that names the stream query being asked. */
export const QUERY_ID_KEY = 'cache_stream_query_id';

function requestText(r: CanonicalRequest): string {
  const parts = [r.system ?? '', r.system_volatile ?? '', JSON.stringify(r.tools)];
  for (const m of r.messages) for (const b of m.content) parts.push(b.type === 'text' ? b.text : b.type === 'tool_result' ? b.content : JSON.stringify(b.input));
  return parts.join('\n');
}

/**
 * A Tier 3 step's answer: a summary names the document version it read (so a summary of an old version
 * differs from a fresh one), and an answer or comparison step gives the query's reference answer.
 */
export function stepAnswer(q: Query, documents: StreamDocuments, request: CanonicalRequest): string {
  const type = request.metadata?.[STEP_TYPE_METADATA_KEY];
  if (type !== 'summarize') return q.answer;
  const id = request.metadata?.[STEP_DOCUMENTS_METADATA_KEY];
  const ref = q.documents?.find((r) => r.startsWith(`${id}@`));
  const doc = ref === undefined ? undefined : documents.get(ref);
  if (!doc) throw new Error(`stream provider: query ${q.id} asks for a summary of '${String(id)}', which it does not carry`);
  const first = doc.text.split(/(?<=[.!?])\s/)[0]!.trim();
  return `Summary of ${doc.title ?? doc.id}, version ${doc.version}: ${first}`;
}

/** A provider that knows every stream query's reference answer (and, for Tier 3 steps, each step's). */
export function createStreamOracleProvider(queries: readonly Query[], documents: StreamDocuments = new Map()): Provider & { calls: number } {
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
      let answer: string;
      try {
        answer = request.metadata?.[STEP_TYPE_METADATA_KEY] ? stepAnswer(q, documents, request) : q.answer;
      } catch (err) {
        return Promise.reject(err as Error);
      }
      const output = tokens.count(answer);
      return Promise.resolve({
        model: request.model,
        content: [{ type: 'text', text: answer }],
        stop_reason: 'end_turn',
        usage: { input_tokens: input, output_tokens: output, cached_input_tokens: 0, cache_creation_input_tokens: 0 },
        latency_ms: 200 + output * 10,
        request_id: `sim_${newId()}`,
      });
    },
  };
  return provider;
}
