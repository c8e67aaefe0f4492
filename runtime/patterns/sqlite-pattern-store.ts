import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Clock } from '../core/clock.ts';
import { newId, type IdFactory } from '../core/ids.ts';
import type { Logger } from '../core/logger.ts';
import type { EventBus } from '../events/index.ts';
import { evidenceKey, failedEvidence, scoreEvidence } from './cluster-scoring.ts';
import { evictOutcomes, US_PER_DAY, type EvictionResult } from './eviction.ts';
import { createFeatureIndex } from './feature-index.ts';
import { usdText, usdToMicros, usdToNumber } from './money.ts';
import { tableCounts, writeRecord, writeVerdict } from './outcome-writes.ts';
import { openPatternDb, PatternSchemaError, type PatternDb, type PatternTables } from './pattern-db.ts';
import { createPatternEventEmitter, evictedPayload } from './pattern-events.ts';
import {
  DEFAULT_PATTERN_CAPS,
  type EventContext,
  type EvidenceOptions,
  type PatternCaps,
  type PatternRecommendation,
  type PatternStore,
  type RecommendEvidence,
  type RecommendOptions,
  type RecordInput,
  type RecordResult,
  type UpdateScoreInput,
} from './pattern-store.ts';
import { assertEmbeddingProvider, packVector, unpackVector, type EmbeddingProvider } from './embeddings/embedding-provider.ts';
import { upgradeToV2, wrapPatternStoreV2, type EmbeddingConfig, type EmbeddingQuery, type HybridIndex, type PatternStoreV2 } from './v2-pattern-store.ts';
import { createEmbeddingCache, type EmbeddingCache, type EmbeddingCacheLimits } from './embeddings/embedding-cache.ts';
import { promptRow } from './prompt-outcomes.ts';
import type { PromptOutcomeRow } from './prompt-model.ts';
import { featuresOfRow, indexedOutcome, storedFingerprint, storedOutcome } from './stored-rows.ts';
import { canonicalForm, isFrozenFeatures, normalizeFeatures, type StructuralFeatures } from './structural-features.ts';

/** Options of `openPatternStore`. */
export interface PatternStoreOptions {
  logger: Logger;
  clock: Clock;
  /** Where pattern.recorded / pattern.evicted go; none when absent. */
  bus?: EventBus | null;
  caps?: Partial<PatternCaps>;
  /** Fingerprint ids; defaults to the process-wide monotonic ULID factory. */
  ids?: IdFactory;
  /** Monotonic milliseconds for `elapsed_ms`; defaults to performance.now. */
  nowMs?: () => number;
  /** How long a write waits for another connection's write; default 5,000 ms. */
  busyTimeoutMs?: number;
  /** §16.6: 'v1' (default) or 'v2' (hybrid fingerprints; needs `embeddingProvider`). */
  fingerprintVersion?: 'v1' | 'v2';
  /** Required under v2 (§16.10 test 13). */
  embeddingProvider?: EmbeddingProvider;
  /** v2 knobs: alpha, cache_max_rows, cache_max_age_days. */
  embedding?: Partial<EmbeddingConfig>;
}

const PERMANENT_CODES = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT']);

function checkUnit(name: string, x: number): void {
  if (!(x >= 0 && x <= 1)) throw new RangeError(`${name} must be in [0, 1], got ${x}`);
}

function checkCaps(c: PatternCaps): void {
  const ok = (n: number) => Number.isInteger(n) && n > 0;
  if (!ok(c.soft_cap_rows) || !ok(c.hard_cap_rows) || !(c.max_age_days > 0) || c.soft_cap_rows > c.hard_cap_rows)
    throw new RangeError(`invalid pattern caps ${JSON.stringify(c)}: positive, soft <= hard`);
}

function checkRecord(input: RecordInput): void {
  if (!input.turn_id) throw new RangeError('record: turn_id is required');
  if (input.success_score !== null) checkUnit('success_score', input.success_score);
  if (!input.cost_usd.isFinite() || input.cost_usd.isNegative()) throw new RangeError(`record: cost_usd must be >= 0, got ${input.cost_usd.toString()}`);
  if (!(input.latency_ms >= 0) || !Number.isFinite(input.latency_ms)) throw new RangeError(`record: latency_ms must be >= 0, got ${input.latency_ms}`);
}

/**
 * Opens the pattern store at `path` (pattern-store.md v1). The file is created on the first write
 * (with its parent directories); until then reads are empty. Reads are served from an in-memory index
 * kept in step with every write of this instance and reloaded when `PRAGMA data_version` shows a
 * commit from another connection or process.
 */
export function openPatternStore(path: string, options: PatternStoreOptions & { fingerprintVersion: 'v2' }): PatternStoreV2;
export function openPatternStore(path: string, options: PatternStoreOptions): PatternStore;
export function openPatternStore(path: string, options: PatternStoreOptions): PatternStore | PatternStoreV2 {
  if (options.fingerprintVersion === 'v2') {
    if (!options.embeddingProvider) throw new Error('pattern store: fingerprint_version v2 needs an embedding provider (--embedding-provider)');
    assertEmbeddingProvider(options.embeddingProvider);
    const { provider_id, dim } = options.embeddingProvider;
    const { store, hybrid } = openStructuralStore(sqliteTables(path, options.busyTimeoutMs ?? 5_000), options, { provider_id, dim });
    return wrapPatternStoreV2(store, hybrid, options.embeddingProvider, options.embedding);
  }
  return openStructuralStore(sqliteTables(path, options.busyTimeoutMs ?? 5_000), options, null).store;
}

/**
 * Where a store's rows live: a SQLite file (`sqliteTables`) or memory (memory-pattern-store.ts). The
 * store's policy (writes, caps, events, the K-NN mirror) is the same over either.
 */
export interface PatternTablesBackend<T extends PatternTables = PatternTables> {
  /** Named in warnings. */
  path: string;
  /** Whether the tables exist yet (a store reads as empty, without creating them, until its first write). */
  exists(): boolean;
  /** Opens (creating when absent) the tables; throws on a file that cannot be used. */
  open(): T;
  /** The v2 embedding cache kept beside the tables. */
  embeddingCache(tables: T, clock: Clock, limits: EmbeddingCacheLimits): EmbeddingCache;
}

/** The tables of the SQLite file at `path`, its parent directories created with it. */
function sqliteTables(path: string, busyTimeoutMs: number): PatternTablesBackend<PatternDb> {
  return {
    path,
    exists: () => existsSync(path),
    open() {
      mkdirSync(dirname(path), { recursive: true });
      return openPatternDb(path, busyTimeoutMs);
    },
    embeddingCache(d, clock, limits) {
      // One connection for rows and cache: a cache write on a second connection would read as a foreign
      // commit and make the next K-NN reload the whole mirror.
      upgradeToV2(d.connection);
      return createEmbeddingCache(d.connection, clock, limits);
    },
  };
}

/** Under v2, the provider whose embeddings the in-memory index mirrors next to the structural features. */
export interface HybridSpec {
  provider_id: string;
  dim: number;
}

/** A store over `backend`'s tables (the v1 surface), and what the v2 layer reads from it when `spec` is given. */
export function openStructuralStore<T extends PatternTables>(
  backend: PatternTablesBackend<T>,
  options: Omit<PatternStoreOptions, 'fingerprintVersion' | 'embeddingProvider' | 'embedding'>,
  spec: HybridSpec | null,
): { store: PatternStore; hybrid: HybridIndex } {
  const path = backend.path;
  const { logger, clock } = options;
  const caps: PatternCaps = { ...DEFAULT_PATTERN_CAPS, ...options.caps };
  checkCaps(caps);
  const ids = options.ids ?? newId;
  const nowMs = options.nowMs ?? (() => performance.now());
  const events = createPatternEventEmitter(options.bus ?? null, logger);
  // A provider of dim 0 (a read-only stand-in that found no vectors) mirrors no embeddings.
  const index = createFeatureIndex(spec && spec.dim > 0 ? { embeddingDim: spec.dim } : {});
  let db: T | null = null;
  /** Set when the file cannot be used (not SQLite, corrupt, newer schema, closed): reads empty, writes skipped. */
  let failure: string | null = null;
  let seenVersion = -1;
  /** The prompt_outcomes rows, mirrored like the index (the `learned` scoring's training data). */
  let promptRows: PromptOutcomeRow[] = [];
  const warned = new Set<string>();

  function warnOnce(op: string, reason: string): void {
    // One line per (operation, cause): a broken file must not flood a long run's log.
    if (warned.has(`${op}\0${reason}`)) return;
    warned.add(`${op}\0${reason}`);
    logger.log('warn', `pattern store: ${op} degraded`, { path, op, reason });
  }

  function storageFailed(op: string, err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    const code = (err as { code?: unknown }).code;
    if (err instanceof PatternSchemaError || (typeof code === 'string' && PERMANENT_CODES.has(code))) {
      failure = message;
      try {
        db?.close();
      } catch {
        // already unusable
      }
      db = null;
      index.clear();
    }
    warnOnce(op, message);
  }

  /** Rebuilds the index from one snapshot of the file. */
  function reload(d: T): void {
    // A load that fails part-way leaves the index untrusted, so the next read loads again.
    seenVersion = -1;
    d.read(() => {
      const version = d.dataVersion();
      index.clear();
      for (const row of d.allFingerprints()) index.putFingerprint(row.id, row.structural_sig, featuresOfRow(row));
      for (const row of d.allOutcomes()) index.putOutcome(indexedOutcome(row));
      promptRows = d.readPromptOutcomes();
      if (spec) for (const row of d.embeddingsOf(spec.provider_id)) if (row.embedding_dim === spec.dim) index.setEmbedding(row.id, unpackVector(row.embedding_blob));
      seenVersion = version;
    });
  }

  /**
   * False while the file is open for reads of its own rows only (fingerprints, outcomes, size): those do not need
   * the index, so it is loaded at the file's first other use (analyze reads a store's fingerprints and nothing else).
   */
  let mirrored = false;

  /** The open database, opening the file first; null when there is none. The index is left as it is. */
  function openFile(op: string, create: boolean): T | null {
    if (failure !== null) {
      warnOnce(op, failure);
      return null;
    }
    if (db) return db;
    if (!create && !backend.exists()) return null;
    try {
      db = backend.open();
      mirrored = false;
    } catch (err) {
      storageFailed(op, err);
    }
    return db;
  }

  /** The open database, opening (and with `create`, creating) the file first and loading the index; null when there is none. */
  function connect(op: string, create: boolean): T | null {
    const d = openFile(op, create);
    if (!d || mirrored) return d;
    try {
      reload(d);
      mirrored = true;
    } catch (err) {
      // A file whose index cannot be loaded is not kept open: the next use opens it again.
      d.close();
      db = null;
      storageFailed(op, err);
    }
    return db;
  }

  /** For reads: the database with the index brought up to date with other connections' commits. */
  function readable(op: string): T | null {
    const d = connect(op, false);
    if (d && d.dataVersion() !== seenVersion) reload(d);
    return d;
  }

  function applyEviction(e: EvictionResult | null): void {
    if (!e) return;
    for (const key of e.outcomes) index.removeOutcome(key.fingerprint_id, key.primary_model);
    for (const id of e.fingerprints) index.removeFingerprint(id);
  }

  const noResult = (): RecordResult => ({
    fingerprint_id: '',
    primary_model: '',
    sample_size_before: 0,
    sample_size_after: 0,
    was_new_fingerprint: false,
    over_soft_cap: false,
    rows_auto_evicted: 0,
  });

  /** v2: stores the turn's embedding on its fingerprint, in the record's transaction, unless it has one. */
  function attachEmbedding(d: T, fingerprintId: string, embedding: Float32Array | null | undefined): Float32Array | null {
    if (!spec || !embedding || embedding.length !== spec.dim || !fingerprintId || index.hasEmbedding(fingerprintId)) return null;
    return d.setEmbedding(fingerprintId, packVector(embedding), spec.provider_id, spec.dim) ? embedding : null;
  }

  function record(input: RecordInput & EmbeddingQuery, ctx: EventContext): RecordResult {
    checkRecord(input);
    // One normalisation, one canonical text and its digest per record (kept per object for frozen features).
    const { features, json, sig } = canonicalForm(input.features);
    const micros = usdToMicros(input.cost_usd);
    const d = connect('record', true);
    if (!d) return noResult();
    const { embedding, prompt_text, ...structural } = input;
    // A turn without its score yet trains the learned scoring once updateScore folds its verdict.
    const prompt = prompt_text !== undefined ? promptRow({ turn_id: input.turn_id, prompt_text, workload_id: features.workload_id, primary_model: input.primary_model, score: input.success_score, cost_usd: usdToNumber(input.cost_usd) }) : null;
    let tx;
    try {
      tx = d.write(() => {
        const w = writeRecord(d, { input: structural, structuralJson: json, sig, micros }, clock.nowUs(), () => ids(), caps);
        let promptStored = false;
        if (prompt && w.next) {
          promptStored = d.insertPromptOutcome(input.turn_id, prompt);
        }
        // Not `{ ...w, stored }`: a property added after a spread is slow in Node 20's V8, and this runs per record.
        return { w, stored: attachEmbedding(d, w.result.fingerprint_id, embedding), promptStored };
      });
    } catch (err) {
      storageFailed('record', err);
      return noResult();
    }
    const { w, stored } = tx;
    if (!w.next) {
      if (stored) index.setEmbedding(w.result.fingerprint_id, stored);
      return w.result;
    }
    index.putFingerprint(w.result.fingerprint_id, sig, features);
    if (prompt && tx.promptStored && prompt.score !== null) promptRows.push({ ...prompt, score: prompt.score });
    if (stored) index.setEmbedding(w.result.fingerprint_id, stored);
    index.putOutcome(indexedOutcome(w.next));
    applyEviction(w.eviction);

    const { result, eviction, beforeCaps, afterCaps } = w;
    // A store without a bus (a matrix fold's) emits nothing: its payloads (the cost as text, the kind) are not built.
    if (!events.live) return result;
    const recordedId = events.recorded(ctx, {
      fingerprint_id: result.fingerprint_id,
      fingerprint_kind: kindOf(result.fingerprint_id),
      primary_model: result.primary_model,
      sample_size_before: result.sample_size_before,
      sample_size_after: result.sample_size_after,
      was_new_fingerprint: result.was_new_fingerprint,
      success_score: input.success_score,
      cost_usd_at_record: usdText(input.cost_usd),
      pricing_version: input.pricing_version,
      over_soft_cap: result.over_soft_cap,
    });
    if (w.hardCap) {
      events.evicted(ctx, recordedId, evictedPayload('hard_cap_evict', beforeCaps, afterCaps, eviction?.oldestAgeDays ?? null));
      return result;
    }
    if (eviction?.outcomes.length) events.evicted(ctx, recordedId, evictedPayload('age_trim', beforeCaps, afterCaps, eviction.oldestAgeDays));
    if (result.over_soft_cap) events.evicted(ctx, recordedId, evictedPayload('soft_cap_signal', afterCaps, afterCaps, null));
    return result;
  }

  /** §16.8: events tell hybrid (v2, with an embedding) fingerprints from structural ones. */
  function kindOf(fingerprintId: string | null): 'structural' | 'hybrid' {
    // Asked per record: a presence check, not a copy of the vector.
    return fingerprintId && index.hasEmbedding(fingerprintId) ? 'hybrid' : 'structural';
  }

  function updateScore(input: UpdateScoreInput, ctx: EventContext): RecordResult {
    checkUnit('score', input.score);
    checkUnit('confidence', input.confidence);
    if (!input.eval_id) throw new RangeError('updateScore: eval_id is required');
    const d = connect('updateScore', false);
    if (!d) {
      if (failure === null) logger.log('warn', 'pattern store: verdict for an unknown turn ignored', { path, turn_id: input.turn_id, eval_id: input.eval_id });
      return noResult();
    }
    let tx;
    try {
      tx = d.write(() => writeVerdict(d, input, clock.nowUs(), caps));
    } catch (err) {
      storageFailed('updateScore', err);
      return noResult();
    }
    if (!tx) {
      logger.log('warn', 'pattern store: verdict for an unknown turn ignored', { path, turn_id: input.turn_id, eval_id: input.eval_id });
      return noResult();
    }
    if (tx.next) index.putOutcome(indexedOutcome(tx.next));
    if (tx.next && tx.folded) {
      try {
        // The turn's prompt row takes the verdict; the mirror is read again (verdicts are rare beside routing).
        if (d.scorePromptOutcome(input.turn_id, input.score)) promptRows = d.readPromptOutcomes();
      } catch (err) {
        storageFailed('updateScore', err);
      }
      events.recorded(ctx, {
        fingerprint_id: tx.result.fingerprint_id,
        fingerprint_kind: kindOf(tx.result.fingerprint_id),
        primary_model: tx.result.primary_model,
        sample_size_before: tx.result.sample_size_before,
        sample_size_after: tx.result.sample_size_after,
        was_new_fingerprint: false,
        success_score: input.score,
        cost_usd_at_record: '0',
        pricing_version: tx.next.pricing_version_last,
        over_soft_cap: tx.result.over_soft_cap,
      });
    }
    return tx.result;
  }

  /**
   * Evidence already gathered at the index's current version, per structural signature and evidence key: the
   * same query of an unchanged index answers the same (a matrix fold routes thousands of tasks of a few
   * hundred shapes between two writes). Emptied whenever the index changes, and when it holds too many.
   */
  const gatheredAt = { version: -1, byQuery: new Map<string, RecommendEvidence>() };
  const GATHERED_MAX = 4096;

  /** The evidence, its elapsed_ms left 0 (the callers time it). */
  function gather(features: StructuralFeatures, opts: EvidenceOptions): RecommendEvidence {
    try {
      if (!readable('recommend')) return failedEvidence(0);
      const { features: query, sig } = canonicalForm(features);
      if (gatheredAt.version !== index.version || gatheredAt.byQuery.size >= GATHERED_MAX) {
        gatheredAt.version = index.version;
        gatheredAt.byQuery.clear();
      }
      const key = `${evidenceKey(opts)}\u0000${sig}`;
      const kept = gatheredAt.byQuery.get(key);
      if (kept) return kept;
      const nearest = index.kNearest(query, opts.k ?? 10, true);
      const priors = opts.scoring === 'expected_gain' ? index.modelTotals(query.workload_id) : undefined;
      const fingerprint_id = index.fingerprintCount ? index.fingerprintIdBySig(sig) : null;
      const ev: RecommendEvidence = { nearest, priors, fingerprint_id, elapsed_ms: 0, failed: false };
      gatheredAt.byQuery.set(key, ev);
      return ev;
    } catch (err) {
      // Slot 4 must never fail a turn (§9.3).
      storageFailed('recommend', err);
      return failedEvidence(0);
    }
  }

  function evidence(features: StructuralFeatures, opts: EvidenceOptions): RecommendEvidence {
    const t0 = nowMs();
    const ev = gather(features, opts);
    return { ...ev, elapsed_ms: nowMs() - t0 };
  }

  function recommend(features: StructuralFeatures, opts: RecommendOptions): PatternRecommendation {
    const t0 = nowMs();
    const ev = gather(features, opts);
    return { ...scoreEvidence(ev, opts), elapsed_ms: nowMs() - t0 };
  }

  /** Runs a read against the file, or answers `fallback` when there is none or it fails. */
  function guardedRead<R>(op: string, fallback: R, fn: (d: T) => R): R {
    try {
      const d = readable(op);
      return d ? fn(d) : fallback;
    } catch (err) {
      storageFailed(op, err);
      return fallback;
    }
  }

  /** A read of the file's own rows, not of the index, or `fallback` when there is no file or it fails. */
  function guardedFileRead<R>(op: string, fallback: R, fn: (d: T) => R): R {
    try {
      const d = openFile(op, false);
      return d ? fn(d) : fallback;
    } catch (err) {
      storageFailed(op, err);
      return fallback;
    }
  }

  const hybrid: HybridIndex = {
    embeddingCache(limits) {
      const d = connect('open', true);
      if (!d) throw new Error(`pattern store ${path}: cannot open (${failure ?? 'unknown error'})`);
      return backend.embeddingCache(d, clock, limits);
    },
    kNearestBlended(features, k, useWorkloadId, query, alpha) {
      if (!Number.isInteger(k) || k < 0) throw new RangeError(`findKNearest: k must be a whole number >= 0, got ${k}`);
      return guardedRead('findKNearest', [], () => index.kNearestBlended(isFrozenFeatures(features) ? canonicalForm(features).features : normalizeFeatures(features), k, useWorkloadId, query, alpha));
    },
    embeddingOf: (id) => guardedRead('fingerprintEmbedding', null, () => index.embeddingOf(id)),
    modelTotals: (workloadId) => guardedRead('recommend', { global: [], workspace: null }, () => index.modelTotals(workloadId)),
    fingerprintIdBySig: (sig) => guardedRead('recommend', null, () => index.fingerprintIdBySig(sig)),
  };

  const store: PatternStore = {
    record,
    updateScore,
    recommend,
    evidence,
    promptOutcomes: () => guardedRead('promptOutcomes', [], () => promptRows),
    findKNearest(features, k, opts) {
      if (!Number.isInteger(k) || k < 0) throw new RangeError(`findKNearest: k must be a whole number >= 0, got ${k}`);
      return guardedRead('findKNearest', [], () => index.kNearest(normalizeFeatures(features), k, opts?.useWorkloadId ?? true));
    },
    fingerprints: () => guardedFileRead('fingerprints', [], (d) => d.read(() => d.allFingerprints()).map(storedFingerprint)),
    outcomes: () => guardedFileRead('outcomes', [], (d) => d.read(() => d.allOutcomes()).map(storedOutcome)),
    size: () =>
      guardedFileRead('size', { fingerprints: 0, outcomes: 0, oldest_updated_at_us: null }, (d) =>
        d.read(() => ({ ...tableCounts(d), oldest_updated_at_us: d.oldestUpdate() })),
      ),
    evict(opts = {}, ctx) {
      const maxRows = opts.max_rows ?? caps.hard_cap_rows;
      const days = opts.older_than_days ?? caps.max_age_days;
      if (!Number.isInteger(maxRows) || maxRows < 0) throw new RangeError(`evict: max_rows must be a whole number >= 0, got ${maxRows}`);
      if (!(days >= 0)) throw new RangeError(`evict: older_than_days must be >= 0, got ${days}`);
      const d = connect('evict', false);
      if (!d) return 0;
      let tx;
      try {
        tx = d.write(() => {
          const nowUs = clock.nowUs();
          const before = tableCounts(d);
          const eviction = evictOutcomes(d, nowUs, nowUs - days * US_PER_DAY, maxRows);
          return { eviction, before, after: tableCounts(d) };
        });
      } catch (err) {
        storageFailed('evict', err);
        return 0;
      }
      applyEviction(tx.eviction);
      const removed = tx.eviction.outcomes.length;
      if (ctx && removed > 0) {
        const trigger = tx.eviction.onlyStale ? 'age_trim' : 'hard_cap_evict';
        events.evicted(ctx, ctx.parent_event_id, evictedPayload(trigger, tx.before, tx.after, tx.eviction.oldestAgeDays));
      }
      return removed;
    },
    clear(ctx) {
      const d = connect('clear', false);
      let before = { fingerprints: 0, outcomes: 0 };
      if (d) {
        try {
          before = d.write(() => {
            const b = tableCounts(d);
            d.deleteAll();
            d.clearPromptOutcomes();
            d.setMeta('last_eviction_at_us', String(clock.nowUs()));
            return b;
          });
        } catch (err) {
          storageFailed('clear', err);
          return 0;
        }
        index.clear();
        promptRows = [];
      } else if (failure !== null) return 0;
      if (ctx) events.evicted(ctx, ctx.parent_event_id, evictedPayload('manual_clear', before, { fingerprints: 0, outcomes: 0 }, null));
      return before.outcomes;
    },
    async batch(body) {
      const d = connect('batch', true);
      // No file (unusable) or already inside a batch: the records run as they would alone.
      if (!d || d.inTransaction()) return body();
      try {
        d.begin();
      } catch (err) {
        storageFailed('batch', err);
        return body();
      }
      let result;
      try {
        result = await body();
      } catch (err) {
        try {
          d.rollback();
        } finally {
          // The index took every write of the body as it went; after a rollback it must be read again.
          seenVersion = -1;
        }
        throw err;
      }
      try {
        d.commit();
      } catch (err) {
        d.rollback();
        seenVersion = -1;
        storageFailed('batch', err);
      }
      return result;
    },
    close() {
      if (failure === 'closed') return;
      try {
        db?.close();
      } finally {
        db = null;
        failure = 'closed';
        index.clear();
      }
    },
  };
  return { store, hybrid };
}
