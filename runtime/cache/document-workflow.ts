// Tier 3 in front of the provider (semantic-cache-phase2.md §14 step 3): a request that carries
// documents is decomposed (WorkflowDecomposer), each step is served from the IntermediateCache or
// computed by its own provider call, and the answer steps are combined into the response. Keys carry
// each document's content version, so a summary of an edited document is never served; the old
// version's steps are dropped when a new one is seen.
import { performance } from 'node:perf_hooks';
import { Decimal } from 'decimal.js';
import type { CanonicalRequest } from '../types/request.ts';
import type { CanonicalResponse } from '../types/response.ts';
import { addUsage, ZERO_USAGE } from '../types/response.ts';
import type { CacheEventSink } from './cache-events.ts';
import { DOCUMENT_IDS_METADATA_KEY, type CarriedDocument, type DocumentRequest } from './document-request.ts';
import { gateMismatch, gateSignature } from './exact-token-gate.ts';
import { IntermediateCache, type ExecutedStep } from './intermediate-cache.ts';
import { decompose, type WorkflowStep } from './workflow-decomposer.ts';

/** Step request metadata: which step of which workflow a provider call computes. */
export const STEP_TYPE_METADATA_KEY = 'cache_step_type';
export const STEP_KEY_METADATA_KEY = 'cache_step_key';
/** The document ids (not versions) the step reads, "|"-separated. */
export const STEP_DOCUMENTS_METADATA_KEY = 'cache_step_documents';

/** A provider call for one step. */
export type StepCall = (request: CanonicalRequest) => Promise<CanonicalResponse>;

/** One step of a Tier 3 workflow, as it went. */
export interface IntermediateStepOutcome extends ExecutedStep {
  /** The request that computes this step (made for a computed step; what would have been made for a served one). */
  request: CanonicalRequest;
}

export interface IntermediateOutcome {
  response: CanonicalResponse;
  steps: IntermediateStepOutcome[];
  /** Steps served from the cache. */
  served: number;
  /** Entries dropped because a document changed since it was last seen. */
  invalidated: number;
  /** Time spent in the cache (decomposition, lookups, combining), provider calls excluded, µs. */
  lookupUs: number;
}

export interface DocumentWorkflowOptions {
  costOf: (response: CanonicalResponse) => string;
  cache?: IntermediateCache;
  /** Check a held answer against the exact-token gate of the question it answered (default on). */
  gate?: boolean;
  onEvent?: CacheEventSink;
}

const ref = (d: CarriedDocument) => `${d.id}@${d.version}`;

function textOf(r: CanonicalResponse): string {
  return r.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

/** The provider request that computes `step`, given the steps already done (summaries first). */
export function stepRequest(request: CanonicalRequest, step: WorkflowStep, documents: readonly CarriedDocument[], done: readonly ExecutedStep[]): CanonicalRequest {
  let text: string;
  if (step.step_type === 'summarize') {
    const doc = documents.find((d) => ref(d) === step.document_id);
    if (!doc) throw new Error(`tier 3: step ${step.step_id} summarises ${String(step.document_id)}, which the request does not carry`);
    text = `Summarise the document "${doc.id}" so that questions about it can be answered from the summary alone.\n\n${doc.text}`;
  } else {
    const summaries = done.filter((s) => s.step_type === 'summarize').map((s) => `Summary of "${String(s.document_id).split('@')[0]}":\n${s.result}`);
    text = `${summaries.join('\n\n')}\n\n${step.step_type === 'compare' ? 'Answer the comparison' : 'Answer the question'} from the ${summaries.length > 1 ? 'summaries' : 'summary'} above.\n\nQuestion: ${step.input_text}`;
  }
  const { [DOCUMENT_IDS_METADATA_KEY]: _ids, ...metadata } = request.metadata ?? {};
  const docs = (step.document_id ?? '').split('|').map((r) => r.split('@')[0]).join('|');
  return {
    model: request.model,
    system: request.system,
    system_volatile: null,
    tools: [],
    messages: [{ role: 'user', content: [{ type: 'text', text }] }],
    temperature: request.temperature,
    max_tokens: request.max_tokens,
    metadata: { ...metadata, [STEP_TYPE_METADATA_KEY]: step.step_type, [STEP_KEY_METADATA_KEY]: step.cache_key, [STEP_DOCUMENTS_METADATA_KEY]: docs },
  };
}

export class DocumentWorkflowTier {
  readonly cache: IntermediateCache;
  private readonly versions = new Map<string, string>();
  private readonly gate: boolean;

  constructor(private readonly o: DocumentWorkflowOptions) {
    this.cache = o.cache ?? new IntermediateCache();
    this.gate = o.gate ?? true;
  }

  /**
   * Answers a document request step by step; `call` computes the steps the cache does not hold. `scope`
   * (tenant, workspace, model, system, earlier turns) prefixes every key, so no step crosses users,
   * prompts or conversations.
   */
  async run(request: CanonicalRequest, doc: DocumentRequest, call: StepCall, scope: string): Promise<IntermediateOutcome> {
    const t0 = performance.now();
    let callUs = 0;
    let invalidated = 0;
    for (const d of doc.documents) {
      const seen = this.versions.get(d.id);
      if (seen !== undefined && seen !== d.version) invalidated += this.cache.invalidateByDocument(d.id);
      this.versions.set(d.id, d.version);
    }
    const steps = decompose(doc.question, doc.documents.map(ref).join('|')).map((s) => ({ ...s, cache_key: `${scope}/${s.cache_key}` }));
    const requests = new Map<string, CanonicalRequest>();
    let usage = { ...ZERO_USAGE };
    let latency = 0;
    let ok = true;
    const { steps: done } = await this.cache.executeWorkflow(
      steps,
      async (step, before) => {
        const r = stepRequest(request, step, doc.documents, before);
        requests.set(step.step_id, r);
        const tc = performance.now();
        const response = await call(r);
        callUs += (performance.now() - tc) * 1000;
        usage = addUsage(usage, response.usage);
        latency += response.latency_ms;
        if (response.stop_reason !== 'end_turn') ok = false;
        return { result: textOf(response), cost_usd: this.o.costOf(response) };
      },
      // An answer held for another wording must agree on numbers, names, negation and direction.
      (step, storedInput) => !this.gate || step.step_type === 'summarize' || gateMismatch(gateSignature(step.input_text), gateSignature(storedInput)) === null,
    );
    const out: IntermediateStepOutcome[] = done.map((s, i) => ({ ...s, request: requests.get(s.step_id) ?? stepRequest(request, s, doc.documents, done.slice(0, i)) }));
    // A step cut short (max_tokens) is not a result to keep.
    if (!ok) for (const s of out) if (!s.served) this.cache.invalidate(s.cache_key);
    const served = out.filter((s) => s.served).length;
    const lookupUs = Math.max(0, (performance.now() - t0) * 1000 - callUs);
    for (const s of out)
      if (s.served)
        this.o.onEvent?.('cache.hit', { tier: 'intermediate', entry_id: s.cache_key, similarity: null, error_bound: null, lookup_us: Math.round(lookupUs), embed_us: 0, avoided_cost_usd: s.cost_usd, served_cost_usd: '0' }, s.request);
      else this.o.onEvent?.('cache.set', { tier: 'intermediate', entry_id: s.cache_key, task_type: s.step_type, cost_usd: s.cost_usd, entries_after: this.cache.stats().entries }, s.request);
    const answer = out
      .filter((s) => s.step_type !== 'summarize')
      .map((s) => s.result)
      .join('\n\n');
    const response: CanonicalResponse = {
      model: request.model,
      content: [{ type: 'text', text: answer }],
      stop_reason: ok ? 'end_turn' : 'max_tokens',
      usage,
      latency_ms: latency + lookupUs / 1000,
      request_id: `tier3_${out.map((s) => (s.served ? 'h' : 'c')).join('')}`,
    };
    return { response, steps: out, served, invalidated, lookupUs };
  }

  /** What the computed steps of `outcome` cost (USD decimal string). */
  static computedCost(outcome: IntermediateOutcome): string {
    return outcome.steps.filter((s) => !s.served).reduce((a, s) => a.plus(s.cost_usd), new Decimal(0)).toFixed();
  }
}
