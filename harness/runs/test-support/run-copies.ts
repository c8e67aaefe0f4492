import Database from 'better-sqlite3';
import { resealRunEvents } from '../run-seal.ts';

/**
 * A trace DB holding `copies` copies of every run in `source`, for tests and perf scripts that need a DB
 * of many runs: every table copied `copies` times, ids suffixed `~k` (columns `id`, `*_id`, and the
 * session id list), and copy k's bench_runs.created_at_us moved k µs later so the last copy is the latest run.
 * A sealed run's copies get the events seal of their own rows (ids changed), as if each had been run and sealed.
 */
export function copyRuns(source: string, out: string, copies: number): void {
  const db = new Database(out);
  db.pragma('journal_mode = WAL');
  db.exec(`ATTACH DATABASE '${source.replace(/'/g, "''")}' AS src`);
  const tables = db.prepare("SELECT name, sql FROM src.sqlite_master WHERE type = 'table' AND sql IS NOT NULL AND name NOT LIKE 'sqlite_%'").all() as { name: string; sql: string }[];
  const indexes = db.prepare("SELECT sql FROM src.sqlite_master WHERE type = 'index' AND sql IS NOT NULL").all() as { sql: string }[];
  for (const t of tables) db.exec(t.sql);
  for (const i of indexes) db.exec(i.sql);
  db.pragma('foreign_keys = OFF');
  for (const t of tables) {
    const cols = (db.prepare(`PRAGMA src.table_info("${t.name}")`).all() as { name: string }[]).map((c) => c.name);
    const rows = db.prepare(`SELECT * FROM src."${t.name}"`).raw().all() as unknown[][];
    const ins = db.prepare(`INSERT OR IGNORE INTO main."${t.name}" (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`);
    const idCol = cols.map((c) => c === 'id' || c.endsWith('_id'));
    const listCol = cols.map((c) => c === 'session_ids_json');
    const createdCol = cols.indexOf('created_at_us');
    db.transaction(() => {
      for (let k = 0; k < copies; k++) {
        for (const row of rows) {
          const copy = row.map((v, i) => {
            if (idCol[i] && typeof v === 'string') return `${v}~${k}`;
            if (listCol[i] && typeof v === 'string') return JSON.stringify((JSON.parse(v) as string[]).map((s) => `${s}~${k}`));
            return v;
          });
          if (t.name === 'bench_runs' && createdCol >= 0) copy[createdCol] = Number(copy[createdCol]) + k;
          ins.run(...copy);
        }
      }
    })();
  }
  db.exec('DETACH DATABASE src');
  const runIds = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'bench_run_seal'").get() ? (db.prepare('SELECT run_id FROM bench_run_seal').pluck().all() as string[]) : [];
  db.transaction(() => {
    for (const runId of runIds) resealRunEvents(db, runId);
  })();
  db.close();
}
