// Replays a query stream through the cache (or with it off) and records what each query got.
import { Decimal } from 'decimal.js';
import { EmbeddingEngine } from '../../runtime/cache/embedding-engine.ts';
import type { CacheEventSink } from '../../runtime/cache/cache-events.ts';
import { SemanticCache, TENANT_METADATA_KEY } from '../../runtime/cache/semantic-cache.ts';
import { AdaptiveThresholdTuner, type ThresholdTunerConfig } from '../../runtime/cache/threshold-tuner.ts';
import type { EmbeddingProvider } from '../../runtime/patterns/embeddings/embedding-provider.ts';
import { costOf, type PriceTable } from '../../runtime/pricing/index.ts';
import type { Message } from '../../runtime/types/content.ts';
import type { CanonicalRequest, ToolSpec } from '../../runtime/types/request.ts';
import type { CanonicalResponse } from '../../runtime/types/response.ts';
import type { Query } from '../../schemas/types/cache-stream.ts';
import { SetupError } from '../errors.ts';
import type { QueryStream } from './load-stream.ts';
import { createStreamOracleProvider, QUERY_ID_KEY } from './stream-provider.ts';
import type { QueryRecord } from './stream-metrics.ts';

const STREAM_TOOL: ToolSpec = {
  name: 'read_file',
  description: 'Read a file of the workspace.',
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

/** The canonical request a stream query becomes. */
export function streamRequest(stream: QueryStream, q: Query): CanonicalRequest {
  const messages: Message[] = (q.context ?? []).map((m) => ({ role: m.role, content: [{ type: 'text', text: m.text }] }));
  if (q.tool_result !== undefined) {
    const id = `tu_${q.id}`;
    messages.push({ role: 'user', content: [{ type: 'text', text: q.text }] });
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id, name: STREAM_TOOL.name, input: { path: 'README.md' } }] });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: q.tool_result, is_error: false }] });
  } else messages.push({ role: 'user', content: [{ type: 'text', text: q.text }] });
  return {
    model: stream.model,
    system: stream.system,
    system_volatile: null,
    tools: q.tools || q.tool_result !== undefined ? [STREAM_TOOL] : [],
    messages,
    temperature: q.temperature ?? 0,
    max_tokens: 1024,
    metadata: { [QUERY_ID_KEY]: q.id, ...(q.tenant ? { [TENANT_METADATA_KEY]: q.tenant } : {}) },
  };
}

export interface StreamRunOptions {
  cache: boolean;
  embedder: EmbeddingProvider;
  prices: PriceTable;
  tuner?: Partial<ThresholdTunerConfig>;
  gate?: boolean;
  seed?: number;
  maxEntries?: number;
  onEvent?: CacheEventSink;
}

export interface StreamRun {
  records: QueryRecord[];
  providerCalls: number;
  embedderId: string;
  cache: SemanticCache | null;
}

/** Replays `stream` in order; with `cache: false` every query goes to the provider (the cache-off arm). */
export async function runStream(stream: QueryStream, options: StreamRunOptions): Promise<StreamRun> {
  const rates = options.prices.rates(stream.model);
  if (!rates) throw new SetupError(`${stream.dir}/stream.yaml: model ${stream.model} is not in the price table (${options.prices.version})`);
  const priced = (r: CanonicalResponse) => costOf(r.usage, rates);
  const provider = createStreamOracleProvider(stream.queries);
  const counterfactual = createStreamOracleProvider(stream.queries);
  const cache = options.cache
    ? new SemanticCache({
        scope: { tenant: 'stream', workspace: stream.name },
        embeddings: new EmbeddingEngine(options.embedder),
        tuner: new AdaptiveThresholdTuner(options.tuner),
        costOf: (r) => priced(r).toFixed(),
        gate: options.gate ?? true,
        seed: options.seed ?? 0,
        maxEntries: options.maxEntries ?? 10_000,
        onEvent: options.onEvent,
      })
    : null;
  // Load the embedder's model before the clock starts: a one-time cost, not a lookup's.
  if (cache) await options.embedder.embed(['warm-up']);
  const seen = new Set<string>();
  const records: QueryRecord[] = [];
  for (const q of stream.queries) {
    const request = streamRequest(stream, q);
    const cost = priced(await counterfactual.complete(request));
    const repeat = seen.has(q.class);
    seen.add(q.class);
    if (q.warm) {
      if (cache) await cache.warm(request, () => provider.complete(request));
      else await provider.complete(request);
      continue;
    }
    if (!cache) {
      const r = await provider.complete(request);
      records.push({ id: q.id, class: q.class, repeat, expectMiss: q.expect === 'miss', servedBy: null, correct: null, explored: false, similarity: null, matchedQuery: null, missReason: 'cache_off', costUsd: cost.toFixed(), spentUsd: priced(r).toFixed(), lookupUs: 0, exactLookupUs: 0, embedUs: 0, searchUs: 0, tier2Consulted: false });
      continue;
    }
    let spent = new Decimal(0);
    const out = await cache.complete(request, async () => {
      const r = await provider.complete(request);
      spent = spent.plus(priced(r));
      return r;
    });
    const text = out.response.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    records.push({
      id: q.id,
      class: q.class,
      repeat,
      expectMiss: q.expect === 'miss',
      servedBy: out.servedBy,
      correct: out.servedBy === null ? null : text === q.answer && q.expect !== 'miss',
      explored: out.explored,
      similarity: out.similarity,
      matchedQuery: out.candidateQuery,
      missReason: out.missReason,
      costUsd: cost.toFixed(),
      spentUsd: spent.toFixed(),
      lookupUs: out.lookupUs,
      exactLookupUs: out.exactLookupUs,
      embedUs: out.embedUs,
      searchUs: out.searchUs,
      tier2Consulted: out.embedUs > 0,
    });
  }
  return { records, providerCalls: provider.calls, embedderId: options.embedder.provider_id, cache };
}
