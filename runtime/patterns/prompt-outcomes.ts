import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { hashedTerms, type PromptOutcomeRow, type SparseVec } from './prompt-model.ts';

/**
 * The store's per-turn prompt rows (issue 27 item 4): one row per recorded turn that carried its prompt,
 * holding the task's hashed-word vector (not its text), its length, workload, model, score and cost, so the
 * `learned` scoring trains on one vector per TASK rather than per structural fingerprint. Kept in their own
 * table beside the outcome accumulators; the accumulators stay the source of truth for every other scoring.
 */

/** Buckets of the stored hashed-word vectors (fixed: stored rows must stay comparable). */
export const PROMPT_TERMS_DIM = 4096;

const SQL = `
CREATE TABLE IF NOT EXISTS prompt_outcomes (
  turn_id        TEXT PRIMARY KEY,
  task_key       TEXT NOT NULL,
  workload_id    TEXT,
  chars          INTEGER NOT NULL,
  terms_json     TEXT NOT NULL,
  primary_model  TEXT NOT NULL,
  score          REAL,
  cost_usd       REAL NOT NULL
);`;

/** What the record path hands over for one turn. */
export interface PromptOutcomeInput {
  turn_id: string;
  prompt_text: string;
  workload_id: string | null;
  primary_model: string;
  /** Null until the turn's verdict arrives (`scorePromptOutcome`). */
  score: number | null;
  cost_usd: number;
}

/** A stored prompt row: its score is null until the turn's verdict arrives. */
export type StoredPromptRow = Omit<PromptOutcomeRow, 'score'> & { score: number | null };

// The same prompt is recorded once per model and, in a matrix cross-fit, in every store that trains on it:
// its key and vector (pure functions of the text) are kept for the last PROMPT_MEMO_MAX distinct texts
// (about 1 KB each; MMLU has 14k prompts) instead of hashed again per record. The vectors are shared, so
// they are never written to (the stores copy or serialise them; training only reads them).
const PROMPT_MEMO_MAX = 16_384;
const promptMemo = new Map<string, { task_key: string; terms: SparseVec }>();

function promptParts(text: string): { task_key: string; terms: SparseVec } {
  let parts = promptMemo.get(text);
  if (!parts) {
    parts = { task_key: createHash('sha256').update(text).digest('hex').slice(0, 32), terms: hashedTerms(text, PROMPT_TERMS_DIM) };
    if (promptMemo.size >= PROMPT_MEMO_MAX) promptMemo.delete(promptMemo.keys().next().value!);
    promptMemo.set(text, parts);
  }
  return parts;
}

/** The row a prompt becomes (its vector hashed once per distinct text, see promptParts). */
export function promptRow(i: PromptOutcomeInput): StoredPromptRow {
  const { task_key, terms } = promptParts(i.prompt_text);
  return {
    task_key,
    terms,
    chars: i.prompt_text.length,
    workload_id: i.workload_id,
    model: i.primary_model,
    score: i.score,
    cost_usd: i.cost_usd,
  };
}

/** Creates the table when missing (older files gain it on their first write). */
export function ensurePromptOutcomes(db: Database.Database): void {
  db.exec(SQL);
}

/** Inserts one turn's row (a repeated turn_id is ignored, as `record` is once per turn). True when inserted. */
export function insertPromptOutcome(db: Database.Database, turnId: string, r: StoredPromptRow): boolean {
  const info = db
    .prepare('INSERT OR IGNORE INTO prompt_outcomes (turn_id, task_key, workload_id, chars, terms_json, primary_model, score, cost_usd) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
    .run(turnId, r.task_key, r.workload_id, r.chars, JSON.stringify([Array.from(r.terms.idx), Array.from(r.terms.val)]), r.model, r.score, r.cost_usd);
  return info.changes > 0;
}

/** A late verdict (`updateScore`) for a recorded turn: its row takes the latest folded score. True when a row changed. */
export function scorePromptOutcome(db: Database.Database, turnId: string, score: number): boolean {
  ensurePromptOutcomes(db);
  return db.prepare('UPDATE prompt_outcomes SET score = ? WHERE turn_id = ?').run(score, turnId).changes > 0;
}

/** Every scored row, in insertion order ([] when the table does not exist yet). */
export function readPromptOutcomes(db: Database.Database): PromptOutcomeRow[] {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'prompt_outcomes'").get();
  if (!exists) return [];
  const rows = db.prepare('SELECT task_key, workload_id, chars, terms_json, primary_model, score, cost_usd FROM prompt_outcomes WHERE score IS NOT NULL ORDER BY rowid').all() as {
    task_key: string;
    workload_id: string | null;
    chars: number;
    terms_json: string;
    primary_model: string;
    score: number;
    cost_usd: number;
  }[];
  return rows.map((r) => {
    const [idx, val] = JSON.parse(r.terms_json) as [number[], number[]];
    const terms: SparseVec = { idx: Int32Array.from(idx), val: Float64Array.from(val) };
    return { task_key: r.task_key, terms, chars: r.chars, workload_id: r.workload_id, model: r.primary_model, score: r.score, cost_usd: r.cost_usd };
  });
}

/** Deletes every row (the store's `clear`). */
export function clearPromptOutcomes(db: Database.Database): void {
  ensurePromptOutcomes(db);
  db.exec('DELETE FROM prompt_outcomes');
}
