// Replays a query stream through the cache (or with it off) and records what each query got.
import { Decimal } from 'decimal.js';
import { withDocuments } from '../../runtime/cache/document-request.ts';
import { DocumentWorkflowTier } from '../../runtime/cache/document-workflow.ts';
import { ContextualEmbeddingEngine, emulatedSummarizer } from '../../runtime/cache/contextual-embedding.ts';
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
import type { QueryRecord, StepRecord } from './stream-metrics.ts';

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
  const request: CanonicalRequest = {
    model: stream.model,
    system: stream.system,
    system_volatile: null,
    tools: q.tools || q.tool_result !== undefined ? [STREAM_TOOL] : [],
    messages,
    temperature: q.temperature ?? 0,
    max_tokens: 1024,
    metadata: { [QUERY_ID_KEY]: q.id, ...(q.tenant ? { [TENANT_METADATA_KEY]: q.tenant } : {}) },
  };
  // The loader checked every ref; a document request carries each text before the question.
  return q.documents ? withDocuments(request, q.documents.map((ref) => ({ id: stream.documents.get(ref)!.id, text: stream.documents.get(ref)!.text }))) : request;
}

export interface StreamRunOptions {
  cache: boolean;
  embedder: EmbeddingProvider;
  prices: PriceTable;
  /** Tuner settings, or a tuner instance (a cross-fitted run passes one warmed by a calibration replay). */
  tuner?: Partial<ThresholdTunerConfig> | AdaptiveThresholdTuner;
  gate?: boolean;
  seed?: number;
  maxEntries?: number;
  onEvent?: CacheEventSink;
  /** Embed each query behind a context summary (§13); streams run on the sim, so the summary is the emulation. */
  contextual?: boolean;
  /** Ctrl-C: stop after the query in progress; the run says how far it got. */
  signal?: AbortSignal;
  /** Called after each query of the stream (warm-up writes included): the progress meter's count. */
  onQuery?(): void;
}

export interface StreamRun {
  records: QueryRecord[];
  providerCalls: number;
  embedderId: string;
  cache: SemanticCache | null;
  /** Set when `signal` stopped the replay: the records cover only the queries before it. */
  interrupted: boolean;
}

/** Queries between two turns of the event loop: the lookups resolve as microtasks, so without it a Ctrl-C waits for the whole stream. */
const YIELD_EVERY = 16;

/** Replays `stream` in order; with `cache: false` every query goes to the provider (the cache-off arm). */
export async function runStream(stream: QueryStream, options: StreamRunOptions): Promise<StreamRun> {
  const rates = options.prices.rates(stream.model);
  if (!rates) throw new SetupError(`${stream.dir}/stream.yaml: model ${stream.model} is not in the price table (${options.prices.version})`);
  const priced = (r: CanonicalResponse) => costOf(r.usage, rates);
  const provider = createStreamOracleProvider(stream.queries, stream.documents);
  const counterfactual = createStreamOracleProvider(stream.queries, stream.documents);
  // A paid embedder is priced from the run's table (an unpriced one is refused here, before any query).
  const embeddings = new EmbeddingEngine(options.embedder, { prices: options.prices });
  const cache = options.cache
    ? new SemanticCache({
        scope: { tenant: 'stream', workspace: stream.name },
        embeddings,
        ...(options.contextual ? { embeddingText: new ContextualEmbeddingEngine(embeddings, emulatedSummarizer()).embeddingText() } : {}),
        tuner: options.tuner instanceof AdaptiveThresholdTuner ? options.tuner : new AdaptiveThresholdTuner(options.tuner),
        costOf: (r) => priced(r).toFixed(),
        gate: options.gate ?? true,
        seed: options.seed ?? 0,
        maxEntries: options.maxEntries ?? 10_000,
        onEvent: options.onEvent,
        intermediate: new DocumentWorkflowTier({ costOf: (r) => priced(r).toFixed(), gate: options.gate ?? true, onEvent: options.onEvent }),
      })
    : null;
  const stepsSeen = new Set<string>();
  // Load the embedder's model before the clock starts: a one-time cost, not a lookup's.
  if (cache) await options.embedder.embed(['warm-up']);
  const seen = new Set<string>();
  const records: QueryRecord[] = [];
  let interrupted = false;
  for (const [i, q] of stream.queries.entries()) {
    if (i > 0) options.onQuery?.();
    if (i % YIELD_EVERY === 0) await new Promise((r) => setImmediate(r));
    if (options.signal?.aborted) {
      interrupted = true;
      break;
    }
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
      records.push({ id: q.id, class: q.class, repeat, expectMiss: q.expect === 'miss', servedBy: null, correct: null, explored: false, similarity: null, threshold: null, matchedQuery: null, missReason: 'cache_off', costUsd: cost.toFixed(), spentUsd: priced(r).toFixed(), lookupUs: 0, exactLookupUs: 0, embedUs: 0, searchUs: 0, tier2Consulted: false });
      continue;
    }
    let spent = new Decimal(0);
    const call = async (r: CanonicalRequest) => {
      const response = await provider.complete(r);
      spent = spent.plus(priced(response));
      return response;
    };
    const out = await cache.complete(request, () => call(request), call);
    const text = out.response.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    // A served step is right when it equals what computing it now would give: a stale summary does not,
    // and an answer held for another class does not (an expect-miss query may still reuse a valid summary).
    const steps: StepRecord[] | undefined = out.steps
      ? await Promise.all(
          out.steps.map(async (s) => {
            const fresh = await counterfactual.complete(s.request);
            const freshText = fresh.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
            const repeatStep = stepsSeen.has(s.cache_key);
            stepsSeen.add(s.cache_key);
            return { key: s.cache_key, type: s.step_type, repeat: repeatStep, served: s.served, correct: s.served ? s.result === freshText : null, costUsd: priced(fresh).toFixed() };
          }),
        )
      : undefined;
    const stepsRight = steps?.every((s) => !s.served || s.correct) ?? true;
    records.push({
      id: q.id,
      class: q.class,
      repeat,
      expectMiss: q.expect === 'miss',
      servedBy: out.servedBy,
      correct: out.servedBy === null ? null : text === q.answer && q.expect !== 'miss' && stepsRight,
      explored: out.explored,
      similarity: out.similarity,
      threshold: out.threshold,
      matchedQuery: out.candidateQuery,
      missReason: out.missReason,
      costUsd: cost.toFixed(),
      // The lookup's embedding is spent whether it hit or missed.
      spentUsd: spent.plus(out.embedCostUsd).toFixed(),
      embedCostUsd: out.embedCostUsd,
      lookupUs: out.lookupUs,
      exactLookupUs: out.exactLookupUs,
      embedUs: out.embedUs,
      searchUs: out.searchUs,
      tier2Consulted: out.embedUs > 0,
      ...(steps ? { steps } : {}),
    });
  }
  if (!interrupted && stream.queries.length > 0) options.onQuery?.();
  return { records, providerCalls: provider.calls, embedderId: options.embedder.provider_id, cache, interrupted };
}
