// The pattern store's tables held in JavaScript maps: what pattern-db.ts answers from a SQLite file,
// row for row and in the same orders (ORDER BY clauses, rowid tie-breaks, the foreign keys' cascades),
// without a statement per write. Used for scratch stores that live as long as one process (a matrix
// cross-fit's per-fold stores); memory-pattern-store.test.ts checks it against the SQLite tables.
import type { EmbeddingRow, FingerprintRow, HistoryRow, OutcomeKey, OutcomeRow, PatternTables } from './pattern-db.ts';
import type { PromptOutcomeRow } from './prompt-model.ts';
import type { StoredPromptRow } from './prompt-outcomes.ts';

interface FingerprintEntry {
  row: FingerprintRow;
  embedding: { blob: Buffer; provider: string; dim: number } | null;
}

interface OutcomeEntry {
  row: OutcomeRow;
  /** SQLite's rowid: insertion order, kept by an upsert; the last tie-break of the eviction order. */
  rowid: number;
}

const outcomeKey = (fingerprintId: string, model: string) => `${fingerprintId}\0${model}`;

/** SQLite's BINARY collation compares UTF-8 bytes, which is code point order (JS `<` compares UTF-16 units). */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const x = a[Symbol.iterator]();
  const y = b[Symbol.iterator]();
  for (;;) {
    const p = x.next();
    const q = y.next();
    if (p.done) return q.done ? 0 : -1;
    if (q.done) return 1;
    const d = p.value.codePointAt(0)! - q.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

// ORDER BY last_updated_at_us ASC, sample_size ASC, rowid ASC (pattern-db.ts EVICTION_ORDER).
const evictionOrder = (a: OutcomeEntry, b: OutcomeEntry) =>
  a.row.last_updated_at_us - b.row.last_updated_at_us || a.row.sample_size - b.row.sample_size || a.rowid - b.rowid;

const keyOf = (e: OutcomeEntry): OutcomeKey => ({ fingerprint_id: e.row.fingerprint_id, primary_model: e.row.primary_model, last_updated_at_us: e.row.last_updated_at_us });

/** A prompt row with its own vector arrays, as SQLite hands out fresh ones on every read. */
const copyPrompt = (r: StoredPromptRow): StoredPromptRow => ({ ...r, terms: { idx: Int32Array.from(r.terms.idx), val: Float64Array.from(r.terms.val) } });

/** The tables, plus the hook by which state kept beside them (the embedding cache) joins their transactions. */
export interface MemoryPatternTables extends PatternTables {
  /** Registers the undo of a change made now: run if the enclosing write or batch rolls back; dropped outside one. */
  journal(undo: () => void): void;
}

/**
 * Fresh, empty tables in memory. A write that throws leaves the tables as they were, as SQLite's savepoints
 * do (an undo log kept while the write runs); a batch rolled back restores the tables as they stood at its
 * begin (a copy of the maps taken then: empty for a fold's seeding, so a batch of 100k records keeps no undo).
 * Rows handed out are copies.
 */
export function createMemoryPatternTables(label = ':memory:'): MemoryPatternTables {
  const fingerprints = new Map<string, FingerprintEntry>();
  // Writes never create two rows of one signature (writeRecord looks it up first), so one id per signature.
  const bySig = new Map<string, string>();
  const outcomes = new Map<string, OutcomeEntry>();
  /** Outcome keys per fingerprint, for the orphan check and the cascade of deleteAll. */
  const modelsOf = new Map<string, Set<string>>();
  const history = new Map<string, HistoryRow>();
  /** History turn ids per outcome key: the cascade when an outcome row goes. */
  const historyOf = new Map<string, Set<string>>();
  const meta = new Map<string, string>();
  /** prompt_outcomes by turn_id; a Map iterates in insertion order, which is SQLite's rowid order here (rows are never re-inserted but after a clear). */
  const prompts = new Map<string, StoredPromptRow>();
  let nextRowid = 1;

  /** The undo of each change made by the open write (its savepoint); dropped when the outermost write ends. */
  const undo: (() => void)[] = [];
  /** Undos `journal`led by state kept beside the tables (the embedding cache) while a batch is open; the snapshot covers the tables. */
  const batchJournal: (() => void)[] = [];
  /** What a rollback of the open batch restores; null with no batch open. */
  let batchStart: (() => void) | null = null;
  let writeDepth = 0;
  const logging = () => batchStart !== null || writeDepth > 0;
  const onUndo = (fn: () => void) => {
    if (writeDepth > 0) undo.push(fn);
  };
  const undoTo = (mark: number) => {
    while (undo.length > mark) undo.pop()!();
  };
  const journal = (fn: () => void) => {
    onUndo(fn);
    if (batchStart) batchJournal.push(fn);
  };

  /** A copy of every table (mutable entries copied, vectors shared: nothing writes to them); calling it puts the copy back. */
  function snapshot(): () => void {
    const fps = new Map([...fingerprints].map(([k, e]) => [k, { ...e }]));
    const sigs = new Map(bySig);
    const outs = new Map(outcomes);
    const models = new Map([...modelsOf].map(([k, v]) => [k, new Set(v)]));
    const hist = new Map(history);
    const histOf = new Map([...historyOf].map(([k, v]) => [k, new Set(v)]));
    const met = new Map(meta);
    const prom = new Map([...prompts].map(([k, r]) => [k, { ...r }]));
    const rowid = nextRowid;
    const put = <K, V>(to: Map<K, V>, from: Map<K, V>) => {
      to.clear();
      for (const [k, v] of from) to.set(k, v);
    };
    return () => {
      put(fingerprints, fps);
      put(bySig, sigs);
      put(outcomes, outs);
      put(modelsOf, models);
      put(history, hist);
      put(historyOf, histOf);
      put(meta, met);
      put(prompts, prom);
      nextRowid = rowid;
    };
  }

  function linkHistory(row: HistoryRow, add: boolean): void {
    const k = outcomeKey(row.fingerprint_id, row.primary_model);
    let s = historyOf.get(k);
    if (add) {
      if (!s) historyOf.set(k, (s = new Set()));
      s.add(row.turn_id);
    } else {
      s?.delete(row.turn_id);
      if (s?.size === 0) historyOf.delete(k);
    }
  }

  function setHistory(row: HistoryRow | undefined, turnId: string): void {
    const old = history.get(turnId);
    if (old) linkHistory(old, false);
    if (row) {
      history.set(turnId, row);
      linkHistory(row, true);
    } else history.delete(turnId);
  }

  function putOutcome(entry: OutcomeEntry | undefined, key: string, fingerprintId: string, model: string): void {
    if (entry) {
      outcomes.set(key, entry);
      let s = modelsOf.get(fingerprintId);
      if (!s) modelsOf.set(fingerprintId, (s = new Set()));
      s.add(model);
    } else {
      outcomes.delete(key);
      const s = modelsOf.get(fingerprintId);
      s?.delete(model);
      if (s?.size === 0) modelsOf.delete(fingerprintId);
    }
  }

  function removeOutcome(fingerprintId: string, model: string): void {
    const k = outcomeKey(fingerprintId, model);
    const old = outcomes.get(k);
    if (!old) return;
    // ON DELETE CASCADE: the outcome's score history goes with it.
    for (const turnId of [...(historyOf.get(k) ?? [])]) {
      const h = history.get(turnId)!;
      setHistory(undefined, turnId);
      onUndo(() => setHistory(h, turnId));
    }
    putOutcome(undefined, k, fingerprintId, model);
    onUndo(() => putOutcome(old, k, fingerprintId, model));
  }

  function removeFingerprint(id: string): void {
    const old = fingerprints.get(id);
    if (!old) return;
    for (const model of [...(modelsOf.get(id) ?? [])]) removeOutcome(id, model);
    fingerprints.delete(id);
    if (bySig.get(old.row.structural_sig) === id) bySig.delete(old.row.structural_sig);
    onUndo(() => {
      fingerprints.set(id, old);
      bySig.set(old.row.structural_sig, id);
    });
  }

  const sortedOutcomes = (keep: (e: OutcomeEntry) => boolean) => [...outcomes.values()].filter(keep).sort(evictionOrder);

  return {
    path: label,
    // No other connection can commit here.
    dataVersion: () => 0,
    write<T>(fn: () => T): T {
      const mark = undo.length;
      const journalled = batchJournal.length;
      writeDepth++;
      try {
        return fn();
      } catch (err) {
        undoTo(mark);
        // Those were just undone: the batch must not undo them again.
        batchJournal.length = journalled;
        throw err;
      } finally {
        writeDepth--;
        if (writeDepth === 0) undo.length = 0;
      }
    },
    inTransaction: () => logging(),
    begin() {
      if (logging()) throw new Error('cannot start a transaction within a transaction');
      batchStart = snapshot();
    },
    commit() {
      if (!batchStart) throw new Error('cannot commit - no transaction is active');
      batchStart = null;
      batchJournal.length = 0;
    },
    rollback() {
      if (!batchStart) return;
      batchStart();
      while (batchJournal.length > 0) batchJournal.pop()!();
      batchStart = null;
    },
    read: <T>(fn: () => T): T => fn(),
    journal,
    fingerprintBySig(sig: string) {
      const id = bySig.get(sig);
      return id === undefined ? undefined : { ...fingerprints.get(id)!.row };
    },
    insertFingerprint(row: FingerprintRow) {
      if (fingerprints.has(row.id)) throw new Error(`UNIQUE constraint failed: fingerprints.id (${row.id})`);
      if (bySig.has(row.structural_sig)) throw new Error(`UNIQUE constraint failed: fingerprints.structural_sig (${row.structural_sig})`);
      // The statement stores kind 'structural' whatever the row says.
      fingerprints.set(row.id, { row: { ...row, kind: 'structural' }, embedding: null });
      bySig.set(row.structural_sig, row.id);
      onUndo(() => {
        fingerprints.delete(row.id);
        bySig.delete(row.structural_sig);
      });
    },
    allFingerprints: () =>
      [...fingerprints.values()].map((e) => ({ ...e.row })).sort((a, b) => a.created_at_us - b.created_at_us || compareCodePoints(a.id, b.id)),
    outcome(fingerprintId: string, model: string) {
      const e = outcomes.get(outcomeKey(fingerprintId, model));
      return e ? { ...e.row } : undefined;
    },
    allOutcomes: () =>
      [...outcomes.values()]
        .map((e) => ({ ...e.row }))
        .sort((a, b) => compareCodePoints(a.fingerprint_id, b.fingerprint_id) || compareCodePoints(a.primary_model, b.primary_model)),
    upsertOutcome(row: OutcomeRow) {
      if (!fingerprints.has(row.fingerprint_id)) throw new Error('FOREIGN KEY constraint failed');
      const k = outcomeKey(row.fingerprint_id, row.primary_model);
      const old = outcomes.get(k);
      putOutcome({ row: { ...row }, rowid: old?.rowid ?? nextRowid++ }, k, row.fingerprint_id, row.primary_model);
      onUndo(() => putOutcome(old, k, row.fingerprint_id, row.primary_model));
    },
    history(turnId: string) {
      const h = history.get(turnId);
      return h ? { ...h } : undefined;
    },
    putHistory(row: HistoryRow) {
      if (!outcomes.has(outcomeKey(row.fingerprint_id, row.primary_model))) throw new Error('FOREIGN KEY constraint failed');
      const old = history.get(row.turn_id);
      setHistory({ ...row }, row.turn_id);
      onUndo(() => setHistory(old, row.turn_id));
    },
    countOutcomes: () => outcomes.size,
    countFingerprints: () => fingerprints.size,
    oldestUpdate() {
      let min: number | null = null;
      for (const e of outcomes.values()) if (min === null || e.row.last_updated_at_us < min) min = e.row.last_updated_at_us;
      return min;
    },
    staleOutcomes: (cutoffUs: number) => sortedOutcomes((e) => e.row.last_updated_at_us < cutoffUs).map(keyOf),
    lruOutcomes: (cutoffUs: number, limit: number) =>
      sortedOutcomes((e) => e.row.last_updated_at_us >= cutoffUs)
        .slice(0, Math.max(0, limit))
        .map(keyOf),
    deleteOutcome: (key: OutcomeKey) => void removeOutcome(key.fingerprint_id, key.primary_model),
    deleteOrphan(fingerprintId: string) {
      if (!fingerprints.has(fingerprintId) || modelsOf.has(fingerprintId)) return false;
      removeFingerprint(fingerprintId);
      return true;
    },
    deleteAll() {
      for (const id of [...fingerprints.keys()]) removeFingerprint(id);
    },
    setMeta(key: string, value: string) {
      const old = meta.get(key);
      meta.set(key, value);
      onUndo(() => (old === undefined ? meta.delete(key) : meta.set(key, old)));
    },
    embeddingsOf: (providerId: string): EmbeddingRow[] =>
      [...fingerprints.values()].flatMap((e) => (e.embedding && e.embedding.provider === providerId ? [{ id: e.row.id, embedding_blob: e.embedding.blob, embedding_dim: e.embedding.dim }] : [])),
    setEmbedding(fingerprintId: string, blob: Buffer, providerId: string, dim: number) {
      const e = fingerprints.get(fingerprintId);
      if (!e || e.embedding) return false;
      const before = e.row;
      e.embedding = { blob: Buffer.from(blob), provider: providerId, dim };
      e.row = { ...e.row, kind: 'hybrid' };
      onUndo(() => {
        e.embedding = null;
        e.row = before;
      });
      return true;
    },
    insertPromptOutcome(turnId: string, row: StoredPromptRow) {
      // INSERT OR IGNORE on the turn_id primary key.
      if (prompts.has(turnId)) return false;
      // Its vector is shared, not copied: rows are read-only once made (prompt-outcomes.ts), and reads hand out copies.
      prompts.set(turnId, { ...row });
      onUndo(() => prompts.delete(turnId));
      return true;
    },
    scorePromptOutcome(turnId: string, score: number) {
      const r = prompts.get(turnId);
      if (!r) return false;
      const old = r.score;
      r.score = score;
      onUndo(() => (r.score = old));
      return true;
    },
    readPromptOutcomes: (): PromptOutcomeRow[] => [...prompts.values()].flatMap((r) => (r.score === null ? [] : [{ ...copyPrompt(r), score: r.score }])),
    clearPromptOutcomes() {
      const old = [...prompts];
      prompts.clear();
      onUndo(() => {
        prompts.clear();
        for (const [k, v] of old) prompts.set(k, v);
      });
    },
    close() {
      prompts.clear();
      fingerprints.clear();
      bySig.clear();
      outcomes.clear();
      modelsOf.clear();
      history.clear();
      historyOf.clear();
    },
  };
}
