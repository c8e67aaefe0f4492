// The cache in front of the provider call: Tier 1 exact, then Tier 2 semantic (eligibility, partition,
// embedding, exact search, exact-token gate, learned threshold), then the call itself, whose final
// answers are kept for both tiers. A request carrying documents goes Tier 1, then Tier 3
// (`DocumentWorkflowTier`: workflow steps in `IntermediateCache`), never Tier 2.
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { canonicalJson } from '../core/canonical-json.ts';
import { newId } from '../core/ids.ts';
import type { CanonicalRequest } from '../types/request.ts';
import type { CanonicalResponse } from '../types/response.ts';
import { ZERO_USAGE } from '../types/response.ts';
import { isCacheableResponse, type CacheEntry, type CacheTier } from './cache-entry.ts';
import type { CacheEventSink } from './cache-events.ts';
import type { CacheStore } from './cache-store.ts';
import { documentRequestOf, type DocumentRequest } from './document-request.ts';
import type { DocumentWorkflowTier, IntermediateStepOutcome, StepCall } from './document-workflow.ts';
import { exactRequestKey, type CacheScope } from './canonical-request-key.ts';
import { DEFAULT_ELIGIBILITY, exactTierEligibility, isTimeSensitive, isToolResultContinuation, semanticTierEligibility, type EligibilityOptions } from './eligibility.ts';
import type { EmbeddingEngine } from './embedding-engine.ts';
import { CostAwareLru } from './eviction.ts';
import { gateMismatch, gateSignature, type GateMismatch, type GateSignature } from './exact-token-gate.ts';
import { MismatchCostCalculator } from './mismatch-cost.ts';
import { DEFAULT_PARTITION_TURNS, partitionKey } from './partition-key.ts';
import { seededRandom } from '../core/seeded-random.ts';
import { TaskTypeDetector } from './task-type-detector.ts';
import { AdaptiveThresholdTuner, newEntryThresholdState, type CostSensitivity } from './threshold-tuner.ts';
import { InMemoryVectorDatabase, type VectorDatabase } from './vector-database.ts';

/** Request metadata naming the tenant a request belongs to; answers never cross tenants. */
export const TENANT_METADATA_KEY = 'cache_tenant';

/** Decides whether a recomputed answer agrees with the cached one (the label of an exploration). */
export type AnswerJudge = (cached: string, fresh: string) => boolean;

/** Default judge: the same text up to case and whitespace. */
export const normalisedTextEqual: AnswerJudge = (a, b) => a.trim().replace(/\s+/g, ' ').toLowerCase() === b.trim().replace(/\s+/g, ' ').toLowerCase();

export interface SemanticCacheOptions {
  scope: CacheScope;
  /** Tier 2's embedder; without one, only Tier 1 runs. */
  embeddings?: EmbeddingEngine;
  /** Text that is embedded for a query (§13 contextual embedding plugs in here); default the query itself. */
  embeddingText?: (query: string, request: CanonicalRequest) => Promise<string>;
  tuner?: AdaptiveThresholdTuner;
  /** §4: a hit the tuner allows is still refused when its mismatch cost reaches the recompute cost. */
  mismatch?: MismatchCostCalculator;
  vectorDatabase?: VectorDatabase;
  store?: CacheStore;
  /** What a computed response cost, USD decimal string (kept on the entry: what a hit saves). */
  costOf: (response: CanonicalResponse) => string;
  judge?: AnswerJudge;
  /** Entries per tier before eviction (default 10,000). */
  maxEntries?: number;
  /** USD weight against recency in eviction; 0 = plain LRU (default 100). */
  evictionCostScale?: number;
  partitionTurns?: number;
  eligibility?: EligibilityOptions;
  sensitivity?: CostSensitivity;
  /** Serve Tier 1 hits at temperature > 0 too. */
  exactOptIn?: boolean;
  /** Switch the exact-token gate off (for the ablation in the report only). */
  gate?: boolean;
  tiers?: { exact: boolean; semantic: boolean };
  /**
   * Tier 3: requests that carry documents (document-request.ts) are answered step by step through it,
   * when `complete` is given a step call. Such requests never go to Tier 2: its query-only similarity
   * cannot see that a document was edited.
   */
  intermediate?: DocumentWorkflowTier;
  seed?: number;
  nowUs?: () => number;
  onEvent?: CacheEventSink;
  topK?: number;
}

/** What happened to one request. */
export interface CacheOutcome {
  response: CanonicalResponse;
  /** The tier that served it, or null when the provider answered. */
  servedBy: CacheTier | null;
  /** A would-be hit that was recomputed to learn its label. */
  explored: boolean;
  /** The label of that exploration: did the cached answer agree with the fresh one? */
  exploreAgreed: boolean | null;
  similarity: number | null;
  /** The similarity the deciding candidate had to reach to be served (tuner's threshold; null when no candidate was weighed or none is certified). */
  threshold: number | null;
  errorBound: number | null;
  entryId: string | null;
  /** The cached query that matched (Tier 2) or was the nearest candidate. */
  candidateQuery: string | null;
  /** Why no tier served it (null on a hit). */
  missReason: string | null;
  taskType: string | null;
  /** Time spent in the cache before answering or calling, microseconds; embedding is part of it. */
  lookupUs: number;
  exactLookupUs: number;
  embedUs: number;
  searchUs: number;
  /** What embedding the query for Tier 2 cost, USD decimal string ('0' when local, remembered or not consulted); a Tier 2 hit is served at this. */
  embedCostUsd: string;
  /** Tier 3's steps when the request carried documents and went through it; else null. */
  steps: IntermediateStepOutcome[] | null;
}

interface SemanticMeta {
  signature: GateSignature;
}

/** What a hit that embedded nothing costs (Tier 1, Tier 3): no model and no embedder was called. */
const NOTHING_USD = '0';

/** A served answer; `servedCostUsd` is what the lookup cost (a Tier 2 hit: its query's embedding). */
function servedResponse(entry: CacheEntry, request: CanonicalRequest, lookupUs: number, servedCostUsd: string): CanonicalResponse {
  return {
    ...entry.response,
    model: request.model,
    usage: { ...ZERO_USAGE },
    latency_ms: lookupUs / 1000,
    request_id: `cache_${entry.id}`,
    served_from_cache: { tier: entry.tier, entry_id: entry.id, served_cost_usd: servedCostUsd },
  };
}

export class SemanticCache {
  private readonly exact = new Map<string, CacheEntry>();
  private readonly semantic = new Map<string, CacheEntry & SemanticMeta>();
  private readonly exactLru: CostAwareLru;
  private readonly semanticLru: CostAwareLru;
  private readonly vectors: VectorDatabase | null;
  readonly tuner: AdaptiveThresholdTuner;
  private readonly detector = new TaskTypeDetector();
  private readonly random: () => number;
  private readonly o: Required<Omit<SemanticCacheOptions, 'embeddings' | 'store' | 'onEvent' | 'vectorDatabase' | 'embeddingText' | 'intermediate'>> &
    Pick<SemanticCacheOptions, 'embeddings' | 'store' | 'onEvent' | 'embeddingText' | 'intermediate'>;

  constructor(options: SemanticCacheOptions) {
    this.o = {
      tuner: options.tuner ?? new AdaptiveThresholdTuner(),
      mismatch: options.mismatch ?? new MismatchCostCalculator(),
      judge: normalisedTextEqual,
      maxEntries: 10_000,
      evictionCostScale: 100,
      partitionTurns: DEFAULT_PARTITION_TURNS,
      eligibility: DEFAULT_ELIGIBILITY,
      sensitivity: 'medium',
      exactOptIn: false,
      gate: true,
      tiers: { exact: true, semantic: true },
      seed: 0,
      nowUs: () => Date.now() * 1000,
      topK: 5,
      ...options,
    };
    if (!Number.isInteger(this.o.maxEntries) || this.o.maxEntries < 1) throw new RangeError(`maxEntries must be a whole number >= 1, got ${this.o.maxEntries}`);
    this.tuner = this.o.tuner;
    this.exactLru = new CostAwareLru(this.o.evictionCostScale);
    this.semanticLru = new CostAwareLru(this.o.evictionCostScale);
    this.vectors = options.embeddings ? (options.vectorDatabase ?? new InMemoryVectorDatabase(options.embeddings.dimension())) : null;
    this.random = seededRandom(this.o.seed);
    if (options.store) this.loadFrom(options.store);
  }

  /** Entries held per tier. */
  size(): { exact: number; semantic: number } {
    return { exact: this.exact.size, semantic: this.semantic.size };
  }

  /**
   * Forgets what would answer `request` (§7.3 invalidate, e.g. after its answer was found wrong): its
   * Tier 1 entry and each Tier 2 entry kept for the same query in the same partition, from the store too.
   * A paraphrase kept as its own entry stays. Returns how many entries went.
   */
  invalidate(request: CanonicalRequest): number {
    const scope = this.scopeOf(request);
    const gone: string[] = [];
    const key = exactRequestKey(request, scope);
    const exact = this.exact.get(key);
    if (exact) {
      this.exact.delete(key);
      this.exactLru.remove(exact.id);
      gone.push(exact.id);
    }
    const sem = this.vectors ? semanticTierEligibility(request, this.o.eligibility) : null;
    if (sem?.eligible) {
      const partition = partitionKey(request, scope, this.o.partitionTurns);
      for (const e of [...this.semantic.values()])
        if (e.key === partition && e.query === sem.query) {
          this.dropSemantic(e.id);
          this.semanticLru.remove(e.id);
          gone.push(e.id);
        }
    }
    if (gone.length) this.o.store?.delete(gone);
    return gone.length;
  }

  /** Computes `request` and keeps the answer in every tier it is eligible for, without a lookup (warm-up). */
  async warm(request: CanonicalRequest, compute: () => Promise<CanonicalResponse>): Promise<CanonicalResponse> {
    const exactOk = this.o.tiers.exact && exactTierEligibility(request, this.o.exactOptIn, this.o.eligibility).eligible;
    const semOk = this.o.tiers.semantic && this.o.embeddings ? semanticTierEligibility(request, this.o.eligibility) : null;
    const response = await compute();
    let semantic = null;
    if (semOk?.eligible) {
      const text = this.o.embeddingText ? await this.o.embeddingText(semOk.query, request) : semOk.query;
      semantic = {
        partition: partitionKey(request, this.scopeOf(request), this.o.partitionTurns),
        vector: await this.o.embeddings!.embedText(text),
        taskType: this.detector.detect(semOk.query).task_type,
        signature: gateSignature(semOk.query),
        query: semOk.query,
      };
    }
    this.keep(request, response, exactOk ? exactRequestKey(request, this.scopeOf(request)) : null, semantic);
    return response;
  }

  /**
   * Answers `request` from a tier or by calling `compute`, keeping a computed final answer for later.
   * `compute` is the provider call; its errors propagate unchanged. `call` makes one provider call for
   * any request: with it, a request carrying documents goes through Tier 3 after a Tier 1 miss.
   */
  async complete(request: CanonicalRequest, compute: () => Promise<CanonicalResponse>, call?: StepCall): Promise<CacheOutcome> {
    const t0 = performance.now();
    const base = { explored: false, exploreAgreed: null, similarity: null, threshold: null, errorBound: null, entryId: null, candidateQuery: null, taskType: null, embedUs: 0, searchUs: 0, embedCostUsd: NOTHING_USD, steps: null };
    let nearest: { similarity: number; query: string; threshold: number | null } | null = null;
    // Tier 1.
    const doc = documentRequestOf(request);
    // The question decides eligibility, not the documents it carries ("next year" in a policy is no clock).
    const shape = doc ? questionOnly(request, doc) : request;
    const exactOk = this.o.tiers.exact ? exactTierEligibility(shape, this.o.exactOptIn, this.o.eligibility) : ({ eligible: false, reason: 'tier_off' } as const);
    const scope = this.scopeOf(request);
    const exactKey = exactOk.eligible ? exactRequestKey(request, scope) : null;
    const exactHit = exactKey ? this.exact.get(exactKey) : undefined;
    const exactLookupUs = (performance.now() - t0) * 1000;
    if (exactHit) {
      this.use(exactHit, this.exactLru);
      const lookupUs = exactLookupUs;
      this.emitHit(request, 'exact', exactHit, null, null, lookupUs, 0, NOTHING_USD);
      return { ...base, response: servedResponse(exactHit, request, lookupUs, NOTHING_USD), servedBy: 'exact', entryId: exactHit.id, candidateQuery: exactHit.query, missReason: null, lookupUs, exactLookupUs };
    }
    if (doc && this.o.intermediate && call && this.tier3Eligible(request, doc)) {
      const out = await this.o.intermediate.run(request, doc, call, this.tier3Scope(request, scope));
      const lookupUs = exactLookupUs + out.lookupUs;
      const all = out.served === out.steps.length;
      if (!all) this.o.onEvent?.('cache.miss', { tier: 'intermediate', reason: out.served ? 'partial_steps' : 'no_step_held', similarity: null, error_bound: null, explored: false, explore_agreed: null, lookup_us: Math.round(lookupUs), embed_us: 0, embed_cost_usd: NOTHING_USD }, request);
      this.keep(request, out.response, exactKey, null);
      // Every step held: no model was called, so the row is marked like any served hit (priced at $0).
      const served = all ? { ...out.response, usage: { ...ZERO_USAGE }, served_from_cache: { tier: 'intermediate' as const, entry_id: out.steps.at(-1)!.cache_key, served_cost_usd: NOTHING_USD } } : out.response;
      return { ...base, response: served, servedBy: all ? 'intermediate' : null, missReason: all ? null : 'intermediate_partial', lookupUs, exactLookupUs, steps: out.steps };
    }
    // Tier 2.
    const semOk = doc
      ? ({ eligible: false, reason: 'carries_document' } as const)
      : this.o.tiers.semantic && this.vectors && this.o.embeddings
        ? semanticTierEligibility(request, this.o.eligibility)
        : ({ eligible: false, reason: 'tier_off' } as const);
    let missReason: string;
    let embedUs = 0;
    let embedCostUsd = NOTHING_USD;
    let searchUs = 0;
    let vector: Float32Array | null = null;
    let partition: string | null = null;
    let taskType: string | null = null;
    let signature: GateSignature | null = null;
    if (!semOk.eligible) missReason = `semantic_${semOk.reason}`;
    else {
      taskType = this.detector.detect(semOk.query).task_type;
      signature = gateSignature(semOk.query);
      partition = partitionKey(request, scope, this.o.partitionTurns);
      const te = performance.now();
      const text = this.o.embeddingText ? await this.o.embeddingText(semOk.query, request) : semOk.query;
      const embedded = await this.o.embeddings!.embedTextCosted(text);
      vector = embedded.vector;
      embedCostUsd = embedded.costUsd.toFixed();
      const ts = performance.now();
      embedUs = (ts - te) * 1000;
      const hits = this.vectors!.query(partition, vector, this.o.topK);
      searchUs = (performance.now() - ts) * 1000;
      missReason = 'no_neighbour';
      let firstGateMiss: GateMismatch | null = null;
      for (const hit of hits) {
        const entry = this.semantic.get(hit.id);
        if (!entry) continue;
        const mismatch = this.o.gate ? gateMismatch(signature, entry.signature) : null;
        if (mismatch) {
          firstGateMiss ??= mismatch;
          continue;
        }
        const decision = this.tuner.decide(taskType, this.o.sensitivity, hit.score, entry.threshold, this.random());
        const lookupUs = (performance.now() - t0) * 1000;
        const common = { ...base, similarity: hit.score, threshold: decision.threshold, errorBound: decision.errorBound, entryId: entry.id, candidateQuery: entry.query, taskType, embedUs, searchUs, embedCostUsd, exactLookupUs };
        if (decision.action === 'serve' && !this.o.mismatch.shouldUseCache(hit.score, taskType, Number(entry.cost_usd) || 1)[0]) {
          missReason = 'mismatch_cost';
          nearest = { similarity: hit.score, query: entry.query, threshold: decision.threshold };
          break;
        }
        if (decision.action === 'serve') {
          this.use(entry, this.semanticLru);
          this.emitHit(request, 'semantic', entry, hit.score, decision.errorBound, lookupUs, embedUs, embedCostUsd);
          return { ...common, response: servedResponse(entry, request, lookupUs, embedCostUsd), servedBy: 'semantic', missReason: null, lookupUs };
        }
        if (decision.action === 'explore') {
          const fresh = await compute();
          const agreed = this.o.judge(textOfResponse(entry.response), textOfResponse(fresh));
          this.tuner.record(taskType, hit.score, agreed, entry.threshold);
          this.o.store?.saveThreshold(entry);
          this.o.onEvent?.('cache.miss', { tier: 'semantic', reason: `explore_${decision.reason}`, similarity: hit.score, error_bound: decision.errorBound, explored: true, explore_agreed: agreed, lookup_us: Math.round(lookupUs), embed_us: Math.round(embedUs), embed_cost_usd: embedCostUsd }, request);
          if (!agreed) this.keep(request, fresh, exactKey, { partition, vector, taskType, signature, query: semOk.query });
          else if (exactKey) this.keep(request, fresh, exactKey, null);
          return { ...common, response: fresh, servedBy: null, explored: true, exploreAgreed: agreed, missReason: `explore_${decision.reason}`, lookupUs };
        }
        missReason = decision.reason;
        // The nearest gate-passing candidate decides; farther ones are less similar still.
        nearest = { similarity: hit.score, query: entry.query, threshold: decision.threshold };
        break;
      }
      if (missReason === 'no_neighbour' && firstGateMiss) missReason = `gate_${firstGateMiss}`;
    }
    const lookupUs = (performance.now() - t0) * 1000;
    this.o.onEvent?.('cache.miss', { tier: semOk.eligible ? 'semantic' : 'exact', reason: missReason, similarity: nearest?.similarity ?? null, error_bound: null, explored: false, explore_agreed: null, lookup_us: Math.round(lookupUs), embed_us: Math.round(embedUs), embed_cost_usd: embedCostUsd }, request);
    const response = await compute();
    this.keep(request, response, exactKey, semOk.eligible && vector && partition && taskType && signature ? { partition, vector, taskType, signature, query: semOk.query } : null);
    return { ...base, similarity: nearest?.similarity ?? null, threshold: nearest?.threshold ?? null, candidateQuery: nearest?.query ?? null, response, servedBy: null, missReason, taskType, lookupUs, exactLookupUs, embedUs, searchUs, embedCostUsd };
  }

  /** Tier 3 takes a document request the way Tier 2 takes a query: no tools, no tool result, a question that does not move with the clock. */
  private tier3Eligible(request: CanonicalRequest, doc: DocumentRequest): boolean {
    return request.tools.length === 0 && !isToolResultContinuation(request) && doc.question.trim().length > 0 && !isTimeSensitive(doc.question);
  }

  /** Everything besides the documents and the question that can change a step's answer. */
  private tier3Scope(request: CanonicalRequest, scope: CacheScope): string {
    const body = canonicalJson({ scope, model: request.model, system: request.system, system_volatile: request.system_volatile, earlier: request.messages.slice(0, -1), temperature: request.temperature });
    return createHash('sha256').update(body).digest('hex').slice(0, 16);
  }

  private scopeOf(request: CanonicalRequest): CacheScope {
    const tenant = request.metadata?.[TENANT_METADATA_KEY];
    return tenant ? { ...this.o.scope, tenant } : this.o.scope;
  }

  private use(entry: CacheEntry, lru: CostAwareLru): void {
    entry.hits++;
    entry.last_used_us = this.o.nowUs();
    lru.touch({ id: entry.id, cost: Number(entry.cost_usd) });
    this.o.store?.touch(entry);
  }

  /** `servedCostUsd` is the lookup's embedding cost: what the hit's llm-call row is priced at. */
  private emitHit(request: CanonicalRequest, tier: CacheTier, entry: CacheEntry, similarity: number | null, errorBound: number | null, lookupUs: number, embedUs: number, servedCostUsd: string): void {
    this.o.onEvent?.('cache.hit', {
      tier,
      entry_id: entry.id,
      similarity,
      error_bound: errorBound,
      lookup_us: Math.round(lookupUs),
      embed_us: Math.round(embedUs),
      avoided_cost_usd: entry.cost_usd,
      served_cost_usd: servedCostUsd,
      embed_cost_usd: servedCostUsd,
    }, request);
  }

  private keep(
    request: CanonicalRequest,
    response: CanonicalResponse,
    exactKey: string | null,
    semantic: { partition: string; vector: Float32Array; taskType: string; signature: GateSignature; query: string } | null,
  ): void {
    if (!isCacheableResponse(response)) return;
    const now = this.o.nowUs();
    const cost = this.o.costOf(response);
    const query = semantic?.query ?? '';
    if (exactKey && !this.exact.has(exactKey)) {
      const entry: CacheEntry = { id: newId(), tier: 'exact', key: exactKey, query, task_type: semantic?.taskType ?? 'general', response, cost_usd: cost, created_us: now, last_used_us: now, hits: 0, threshold: newEntryThresholdState() };
      const evicted = this.admit(request, entry, this.exactLru, this.exact.size, (id) => this.dropExact(id));
      this.exact.set(exactKey, entry);
      this.o.store?.put(entry, null, null, evicted);
      this.emitSet(request, entry, this.exact.size);
    }
    if (semantic) {
      const entry = { id: newId(), tier: 'semantic' as const, key: semantic.partition, query, task_type: semantic.taskType, response, cost_usd: cost, created_us: now, last_used_us: now, hits: 0, threshold: newEntryThresholdState(), signature: semantic.signature };
      const evicted = this.admit(request, entry, this.semanticLru, this.semantic.size, (id) => this.dropSemantic(id));
      this.semantic.set(entry.id, entry);
      this.vectors!.upsert([{ id: entry.id, partition: semantic.partition, vector: semantic.vector }]);
      this.o.store?.put(stripMeta(entry), this.o.embeddings!.providerId, semantic.vector, evicted);
      this.emitSet(request, entry, this.semantic.size);
    }
  }

  /** Makes room for one more entry; returns the evicted ids. */
  private admit(request: CanonicalRequest, entry: CacheEntry, lru: CostAwareLru, size: number, drop: (id: string) => CacheEntry | undefined): string[] {
    const evicted: string[] = [];
    for (let n = size; n >= this.o.maxEntries; n--) {
      const id = lru.evict();
      if (id === undefined) break;
      const gone = drop(id);
      if (gone) {
        evicted.push(id);
        this.o.onEvent?.('cache.evicted', { tier: gone.tier, entry_id: id, policy: this.o.evictionCostScale === 0 ? 'lru' : 'lru_cost', age_us: Math.max(0, this.o.nowUs() - gone.created_us), hits: gone.hits, entries_after: n - 1 }, request);
      }
    }
    lru.touch({ id: entry.id, cost: Number(entry.cost_usd) });
    return evicted;
  }

  private dropExact(id: string): CacheEntry | undefined {
    for (const [k, e] of this.exact)
      if (e.id === id) {
        this.exact.delete(k);
        return e;
      }
    return undefined;
  }

  private dropSemantic(id: string): CacheEntry | undefined {
    const e = this.semantic.get(id);
    if (!e) return undefined;
    this.semantic.delete(id);
    this.vectors!.delete([id]);
    return e;
  }

  private emitSet(request: CanonicalRequest, entry: CacheEntry, entriesAfter: number): void {
    this.o.onEvent?.('cache.set', { tier: entry.tier, entry_id: entry.id, task_type: entry.task_type, cost_usd: entry.cost_usd, entries_after: entriesAfter }, request);
  }

  private loadFrom(store: CacheStore): void {
    const embedderId = this.o.embeddings?.providerId ?? null;
    for (const { entry, embedder, vector } of store.loadAll()) {
      if (entry.tier === 'exact') {
        this.exact.set(entry.key, entry);
        this.exactLru.touch({ id: entry.id, cost: Number(entry.cost_usd) });
      } else if (entry.tier === 'semantic' && vector && this.vectors && embedder === embedderId && vector.length === this.vectors.dim) {
        this.semantic.set(entry.id, { ...entry, signature: gateSignature(entry.query) });
        this.vectors.upsert([{ id: entry.id, partition: entry.key, vector }]);
        this.semanticLru.touch({ id: entry.id, cost: Number(entry.cost_usd) });
      }
    }
  }
}

/** `request` with its documents left out of the last message: what eligibility reads. */
function questionOnly(request: CanonicalRequest, doc: DocumentRequest): CanonicalRequest {
  const last = request.messages[request.messages.length - 1]!;
  return { ...request, messages: [...request.messages.slice(0, -1), { ...last, content: [{ type: 'text', text: doc.question }] }] };
}

function stripMeta(e: CacheEntry & SemanticMeta): CacheEntry {
  const { signature: _signature, ...rest } = e;
  return rest;
}

function textOfResponse(r: CanonicalResponse): string {
  return r.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}
