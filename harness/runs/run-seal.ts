import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import { SetupError } from '../errors.ts';

/**
 * A finished run's seal: SHA-256 over every row of every table of its trace DB (reps, events, sessions,
 * transcripts, plan, provenance), written when the run is finalised and recomputed by `bench merge`.
 * Tamper-evident, not tamper-proof: an edit made after the run finished shows, but whoever edits the
 * DB can also recompute the seal (there is no secret key).
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS bench_run_seal (
  run_id TEXT PRIMARY KEY,
  digest TEXT NOT NULL,
  sealed_at_us INTEGER NOT NULL
);
`;

/** Tables left out of the digest: the seal itself, and the lease (who writes, not what was written). */
export const UNSEALED_TABLES: ReadonlySet<string> = new Set(['bench_run_seal', 'bench_run_lease']);

/** One column as canonical text: SQLite's own quoting (strings escaped, blobs in hex), reals with every bit. */
const canonical = (c: string) => `CASE typeof("${c}") WHEN 'real' THEN printf('%!.17g', "${c}") ELSE quote("${c}") END`;

/** SHA-256 over the DB's content: each table by name, its columns, then its rows in a canonical order. */
export function contentDigest(db: Database): string {
  const h = createHash('sha256');
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map((t) => t.name).filter((t) => !UNSEALED_TABLES.has(t));
  for (const t of tables) {
    const cols = (db.prepare(`PRAGMA table_info("${t}")`).all() as { name: string }[]).map((c) => c.name.replace(/"/g, '""'));
    h.update(`T\0${t}\0${cols.join('\0')}\n`);
    const row = cols.map(canonical).join(` || char(31) || `);
    const stmt = db.prepare(`SELECT ${row} AS r FROM "${t}" ORDER BY 1`).pluck();
    for (const r of stmt.iterate() as Iterable<string>) h.update(`${r}\n`);
  }
  return h.digest('hex');
}

/** Seals a finalised run (replacing an older seal). */
export function sealRun(db: Database, runId: string, nowUs: number): void {
  db.exec(SCHEMA);
  const digest = contentDigest(db);
  db.prepare('INSERT OR REPLACE INTO bench_run_seal (run_id, digest, sealed_at_us) VALUES (?, ?, ?)').run(runId, digest, nowUs);
}

/** Removes a run's seal: a resumed run is no longer final until it is finalised again. */
export function unsealRun(db: Database, runId: string): void {
  db.exec(SCHEMA);
  db.prepare('DELETE FROM bench_run_seal WHERE run_id = ?').run(runId);
}

/** Refuses (exit 2, naming the DB) a run with no seal or whose content no longer matches it. */
export function checkSeal(db: Database, path: string, runId: string): void {
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'bench_run_seal'").get() !== undefined;
  const row = has ? (db.prepare('SELECT digest FROM bench_run_seal WHERE run_id = ?').get(runId) as { digest: string } | undefined) : undefined;
  if (!row) throw new SetupError(`${path}: run ${runId} has no seal (written by an older bench, or its seal was removed), so its rows cannot be checked; run the shard again`);
  const now = contentDigest(db);
  if (now !== row.digest)
    throw new SetupError(
      `${path}: the DB's content does not match the seal written when run ${runId} finished (sha256 ${row.digest.slice(0, 16)}…, now ${now.slice(0, 16)}…): rows or events were changed, added or removed since. Run the shard again`,
    );
}
