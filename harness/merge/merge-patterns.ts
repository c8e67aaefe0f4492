import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { createIdFactory } from '../../runtime/core/ids.ts';
import { openSqliteForReading } from '../../runtime/core/sqlite-reader.ts';
import { welfordAdd, type RunningMean } from '../../runtime/patterns/welford.ts';
import { SetupError } from '../errors.ts';
import { BadTraceValueError } from '../runs/check-run-values.ts';
import { jobKey } from '../jobs/shard.ts';
import type { MergeInput } from './merge-inputs.ts';

interface FpRow {
  id: string;
  kind: string;
  structural_json: string;
  structural_sig: string;
  embedding_blob: Buffer | null;
  embedding_provider: string | null;
  embedding_dim: number | null;
  created_at_us: number;
}
interface OutcomeRow {
  fingerprint_id: string;
  primary_model: string;
  sample_size: number;
  success_score_mean: number;
  success_score_count: number;
  sum_cost_usd_micros: bigint;
  sum_latency_ms: number;
  pricing_version_last: string;
  last_updated_at_us: number;
}
interface HistoryRow {
  turn_id: string;
  fingerprint_id: string;
  primary_model: string;
  eval_id_applied: string | null;
  score: number | null;
  confidence: number | null;
  folded: number;
  applied_at_us: number;
}

/** One input's pattern store, read whole. */
interface StoreRows {
  path: string;
  schema: { type: string; name: string; sql: string }[];
  meta: { key: string; value: string }[];
  fingerprints: FpRow[];
  outcomes: OutcomeRow[];
  history: HistoryRow[];
  embeddingCache: Record<string, unknown>[];
}

/** Where an input's pattern store is: beside its DB (`x.db` -> `x.patterns.db`, as CI artifacts keep them), else the path it recorded. */
export function patternStorePathOf(input: MergeInput): string | null {
  const beside = input.path.replace(/\.db$/, '') + '.patterns.db';
  if (existsSync(beside)) return beside;
  const recorded = input.provenance.patterns_db_path;
  return recorded && existsSync(recorded) ? recorded : null;
}

/** A finite number in [lo, hi] (hi omitted: no upper bound). */
const within = (v: unknown, lo: number, hi = Infinity) => typeof v === 'number' && Number.isFinite(v) && v >= lo && v <= hi;

/**
 * Refuses (exit 2, naming the store, table, row and field) a value no run writes into a pattern store:
 * a count that is not whole, a score or confidence outside [0, 1], a negative spend or latency. A store
 * edited and resealed by someone without METIS_SEAL_KEY passes the seal, not this.
 */
function assertStoreValues(s: StoreRows): void {
  const bad = (table: string, row: string, field: string, v: unknown, what: string) => new BadTraceValueError(s.path, table, row, field, `${String(v)} is ${what}`);
  for (const o of s.outcomes) {
    const row = `${o.fingerprint_id}/${o.primary_model}`;
    for (const f of ['sample_size', 'success_score_count', 'last_updated_at_us'] as const) if (!Number.isInteger(o[f]) || o[f] < 0) throw bad('outcomes', row, f, o[f], 'not a whole number >= 0');
    if (!within(o.success_score_mean, 0, 1)) throw bad('outcomes', row, 'success_score_mean', o.success_score_mean, 'outside [0, 1]');
    if (o.sum_cost_usd_micros < 0n) throw bad('outcomes', row, 'sum_cost_usd_micros', o.sum_cost_usd_micros, 'a negative spend');
    if (!within(o.sum_latency_ms, 0)) throw bad('outcomes', row, 'sum_latency_ms', o.sum_latency_ms, 'not a finite number >= 0');
  }
  for (const h of s.history) {
    for (const f of ['score', 'confidence'] as const) if (h[f] !== null && !within(h[f], 0, 1)) throw bad('outcome_score_history', h.turn_id, f, h[f], 'outside [0, 1]');
    if (h.folded !== 0 && h.folded !== 1) throw bad('outcome_score_history', h.turn_id, 'folded', h.folded, 'neither 0 nor 1');
  }
}

/** An outcome's spend in whole micro-dollars: a REAL or TEXT there (a hand edit) has no exact value and is refused. */
function wholeMicros(path: string, o: Record<string, unknown>): bigint {
  const v = o.sum_cost_usd_micros;
  if (typeof v !== 'bigint') throw new BadTraceValueError(path, 'outcomes', `${String(o.fingerprint_id)}/${String(o.primary_model)}`, 'sum_cost_usd_micros', `${String(v)} is not a whole number of micro-dollars`);
  return v;
}

function readStore(path: string): StoreRows {
  const db = openSqliteForReading(path);
  db.defaultSafeIntegers(false);
  try {
    const has = (t: string) => db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?").get(t) !== undefined;
    if (!has('fingerprints') || !has('outcomes') || !has('outcome_score_history')) throw new SetupError(`${path}: not a pattern store (no fingerprints/outcomes/outcome_score_history tables)`);
    const outcomes = db.prepare('SELECT * FROM outcomes').safeIntegers(true).all() as Record<string, unknown>[];
    const store: StoreRows = {
      path,
      schema: db.prepare("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY type = 'index', rowid").all() as StoreRows['schema'],
      meta: has('store_meta') ? (db.prepare('SELECT key, value FROM store_meta').all() as StoreRows['meta']) : [],
      fingerprints: db.prepare('SELECT * FROM fingerprints').all() as FpRow[],
      outcomes: outcomes.map((o) => ({
        ...(o as unknown as OutcomeRow),
        sample_size: Number(o.sample_size),
        success_score_count: Number(o.success_score_count),
        last_updated_at_us: Number(o.last_updated_at_us),
        sum_cost_usd_micros: wholeMicros(path, o),
      })),
      history: db.prepare('SELECT * FROM outcome_score_history').all() as HistoryRow[],
      embeddingCache: has('embedding_cache') ? (db.prepare('SELECT * FROM embedding_cache').all() as Record<string, unknown>[]) : [],
    };
    assertStoreValues(store);
    return store;
  } finally {
    db.close();
  }
}

/**
 * The order in which one machine would have written each turn: the turn's rep's place in the run's
 * job list, then the turn's place in its rep (turn.started event ids are monotonic within a process).
 * Turns no input trace knows (a store seeded before this run) sort first, by when they were applied.
 */
function turnOrder(inputs: readonly MergeInput[]): Map<string, [number, string]> {
  const order = new Map<string, [number, string]>();
  for (const input of inputs) {
    const index = new Map(input.plan.map((j) => [jobKey(j), j.index]));
    const sessionJob = new Map<string, number>();
    for (const r of input.db.prepare('SELECT pass, workload, rep, session_ids_json FROM workload_runs').all() as { pass: string; workload: string; rep: number; session_ids_json: string }[]) {
      const i = index.get(jobKey(r));
      if (i === undefined) continue;
      for (const s of JSON.parse(r.session_ids_json) as string[]) sessionJob.set(s, i);
    }
    for (const e of input.db.prepare("SELECT id, session_id, turn_id FROM events WHERE type = 'turn.started' AND turn_id IS NOT NULL").all() as { id: string; session_id: string; turn_id: string }[]) {
      const job = sessionJob.get(e.session_id);
      if (job !== undefined) order.set(e.turn_id, [job, e.id]);
    }
  }
  return order;
}

/**
 * Merges the inputs' pattern stores into `outPath` as one machine running the jobs in order would
 * have left it. Stores whose turns another input store already holds (the store Pass C ran on was
 * seeded from the A/B shards) are dropped; the rest must be disjoint by turn. Then every outcome is
 * rebuilt: samples and cost/latency sums add, the score mean is folded again in job order (Welford
 * is order-sensitive in the last bits), and fingerprint ids and timestamps are re-issued in job order
 * so the K-NN's tie-breaks (fresher first, then ids) rank neighbours as on one machine.
 * Returns the store paths used, or null when no input has a store.
 */
export function mergePatternStores(outPath: string, inputs: readonly MergeInput[]): string[] | null {
  const paths = [...new Set(inputs.map(patternStorePathOf).filter((p): p is string => p !== null))];
  if (paths.length === 0) return null;
  let stores = paths.map(readStore);
  const turnsOf = new Map(stores.map((s) => [s, new Set(s.history.map((h) => h.turn_id))]));
  // Drop stores another store contains (largest first keeps the superset).
  stores.sort((a, b) => turnsOf.get(b)!.size - turnsOf.get(a)!.size);
  const kept: StoreRows[] = [];
  for (const s of stores) {
    const mine = turnsOf.get(s)!;
    const container = kept.find((k) => [...mine].every((t) => turnsOf.get(k)!.has(t)));
    if (container) continue;
    const clash = kept.find((k) => [...mine].some((t) => turnsOf.get(k)!.has(t)));
    if (clash) throw new SetupError(`overlapping pattern stores: ${s.path} and ${clash.path} both hold some (not all) of the same turns; merge the shards' own stores, not a store seeded from some of them`);
    kept.push(s);
  }
  stores = kept;

  const order = turnOrder(inputs);
  const fpKey = (f: FpRow) => `${f.structural_sig}\u0000${f.embedding_provider ?? ''}`;
  // Every history row with its store's fingerprint and its place in the run.
  const rows = stores.flatMap((s) => {
    const fps = new Map(s.fingerprints.map((f) => [f.id, f]));
    return s.history.map((h) => ({ h, fp: fps.get(h.fingerprint_id)!, at: order.get(h.turn_id) ?? null }));
  });
  rows.sort((a, b) => {
    if (a.at === null || b.at === null) return a.at === null && b.at === null ? a.h.applied_at_us - b.h.applied_at_us : a.at === null ? -1 : 1;
    return a.at[0] - b.at[0] || (a.at[1] < b.at[1] ? -1 : a.at[1] > b.at[1] ? 1 : 0);
  });

  // Synthetic time in job order: a rep's records (session end), then its verdicts, as one machine writes them.
  const base = Math.min(...stores.flatMap((s) => s.fingerprints.map((f) => f.created_at_us)), Date.now() * 1000);
  const events: { row: (typeof rows)[number]; phase: 0 | 1 }[] = [];
  const byRep = new Map<string, (typeof rows)[number][]>();
  for (const r of rows) {
    const key = r.at ? String(r.at[0]) : `pre:${r.h.turn_id}`;
    byRep.set(key, [...(byRep.get(key) ?? []), r]);
  }
  for (const group of byRep.values()) {
    for (const r of group) events.push({ row: r, phase: 0 });
    for (const r of group) if (r.h.eval_id_applied !== null) events.push({ row: r, phase: 1 });
  }
  const ids = createIdFactory(() => Math.floor(base / 1000));
  const newFp = new Map<string, FpRow>();
  const outcomeKey = (fp: FpRow, model: string) => `${fpKey(fp)}\u0001${model}`;
  const outcomes = new Map<string, { fp: FpRow; model: string; n: number; mean: RunningMean; micros: bigint; latency: number; pricing: string; updated: number }>();
  const history: HistoryRow[] = [];
  const srcOutcome = new Map<string, OutcomeRow>(stores.flatMap((s) => s.outcomes.map((o) => [`${s.path}\u0000${o.fingerprint_id}\u0000${o.primary_model}`, o] as [string, OutcomeRow])));
  const storeOf = new Map(stores.flatMap((s) => s.history.map((h) => [h.turn_id, s] as const)));
  const lastSeen = new Map<string, number>();
  events.forEach((e, t) => {
    const { h, fp } = e.row;
    const now = base + t;
    if (!newFp.has(fpKey(fp))) newFp.set(fpKey(fp), { ...fp, id: ids(), created_at_us: now });
    const key = outcomeKey(fp, h.primary_model);
    lastSeen.set(h.turn_id, now);
    if (!outcomes.has(key)) outcomes.set(key, { fp, model: h.primary_model, n: 0, mean: { count: 0, mean: 0 }, micros: 0n, latency: 0, pricing: '', updated: now });
    const o = outcomes.get(key)!;
    o.updated = now;
    if (e.phase === 0) o.n += 1;
    if (e.phase === 1 || (e.phase === 0 && h.eval_id_applied === null && h.folded === 1)) if (h.folded === 1 && h.score !== null) o.mean = welfordAdd(o.mean, h.score);
  });
  // Cost, latency and pricing per outcome come from the stores' sums (disjoint turns: they add).
  const seenSource = new Set<string>();
  for (const r of rows) {
    const s = storeOf.get(r.h.turn_id)!;
    const src = `${s.path}\u0000${r.h.fingerprint_id}\u0000${r.h.primary_model}`;
    if (seenSource.has(src)) continue;
    seenSource.add(src);
    const so = srcOutcome.get(src)!;
    const o = outcomes.get(outcomeKey(r.fp, r.h.primary_model))!;
    o.micros += so.sum_cost_usd_micros;
    o.latency += so.sum_latency_ms;
    if (so.pricing_version_last > o.pricing) o.pricing = so.pricing_version_last;
  }
  for (const r of rows) history.push({ ...r.h, fingerprint_id: newFp.get(fpKey(r.fp))!.id, applied_at_us: lastSeen.get(r.h.turn_id)! });

  const out = new Database(outPath);
  try {
    out.pragma('journal_mode = WAL');
    const schemaVersion = Math.max(...stores.map((s) => Number(s.meta.find((m) => m.key === 'schema_version')?.value ?? 1)));
    out.transaction(() => {
      for (const o of stores[0]!.schema) out.exec(o.sql.replace(/^CREATE (UNIQUE )?(TABLE|INDEX) (IF NOT EXISTS )?/i, (_m, u: string | undefined, k: string) => `CREATE ${u ?? ''}${k} IF NOT EXISTS `));
      for (const s of stores.slice(1)) for (const o of s.schema) out.exec(o.sql.replace(/^CREATE (UNIQUE )?(TABLE|INDEX) (IF NOT EXISTS )?/i, (_m, u: string | undefined, k: string) => `CREATE ${u ?? ''}${k} IF NOT EXISTS `));
      const meta = out.prepare('INSERT OR REPLACE INTO store_meta (key, value) VALUES (?, ?)');
      for (const s of stores) for (const m of s.meta) meta.run(m.key, m.value);
      meta.run('schema_version', String(schemaVersion));
      const fpIns = out.prepare('INSERT INTO fingerprints (id, kind, structural_json, structural_sig, embedding_blob, embedding_provider, embedding_dim, created_at_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
      for (const f of newFp.values()) fpIns.run(f.id, f.kind, f.structural_json, f.structural_sig, f.embedding_blob, f.embedding_provider, f.embedding_dim, f.created_at_us);
      const oIns = out.prepare(
        'INSERT INTO outcomes (fingerprint_id, primary_model, sample_size, success_score_mean, success_score_count, sum_cost_usd_micros, sum_latency_ms, pricing_version_last, last_updated_at_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
      for (const o of outcomes.values()) oIns.run(newFp.get(fpKey(o.fp))!.id, o.model, o.n, o.mean.mean, o.mean.count, o.micros, o.latency, o.pricing, o.updated);
      const hIns = out.prepare('INSERT INTO outcome_score_history (turn_id, fingerprint_id, primary_model, eval_id_applied, score, confidence, folded, applied_at_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
      for (const h of history) hIns.run(h.turn_id, h.fingerprint_id, h.primary_model, h.eval_id_applied, h.score, h.confidence, h.folded, h.applied_at_us);
      const cacheRows = stores.flatMap((s) => s.embeddingCache);
      if (cacheRows.length) {
        const cols = Object.keys(cacheRows[0]!);
        const cIns = out.prepare(`INSERT OR IGNORE INTO embedding_cache (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`);
        for (const c of cacheRows) cIns.run(...cols.map((k) => c[k]));
      }
    })();
    out.pragma(`user_version = ${schemaVersion}`);
  } finally {
    out.close();
  }
  return stores.map((s) => s.path);
}
