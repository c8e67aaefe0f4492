import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { Decimal } from 'decimal.js';
import { openSqliteForReading } from '../../runtime/core/sqlite-reader.ts';
import type { MatrixReport } from '../../schemas/types/matrix-report.ts';
import { SetupError } from '../errors.ts';
import type { MatrixRunData, SettingName, SettingRun } from './matrix-report.ts';
import type { OutcomeTable } from './outcome-table.ts';

/**
 * The DB of a matrix run: everything its report is computed from — the provenance, the candidate
 * pool's recorded outcomes per task (scores, exact costs, clusters) and the router's choice for every
 * task at every operating point of every setting — so `bench analyze --skip-execute` rebuilds every
 * figure with no routing and no matrix file.
 */

const SCHEMA = `
CREATE TABLE matrix_run (run_id TEXT PRIMARY KEY, provenance TEXT NOT NULL);
CREATE TABLE matrix_tasks (run_id TEXT NOT NULL, t INTEGER NOT NULL, task_id TEXT NOT NULL, cluster TEXT NOT NULL, scores TEXT NOT NULL, costs_usd TEXT NOT NULL, PRIMARY KEY (run_id, t));
CREATE TABLE matrix_picks (run_id TEXT NOT NULL, setting TEXT NOT NULL, point INTEGER NOT NULL, cost_weight REAL NOT NULL, picks TEXT NOT NULL, PRIMARY KEY (run_id, setting, point));
CREATE TABLE matrix_stores (run_id TEXT NOT NULL, setting TEXT NOT NULL, outcomes_max INTEGER NOT NULL, fingerprints_max INTEGER NOT NULL, stores INTEGER NOT NULL, PRIMARY KEY (run_id, setting));
CREATE TABLE matrix_layout (run_id TEXT NOT NULL, setting TEXT NOT NULL, folds TEXT, arrival TEXT, PRIMARY KEY (run_id, setting));
CREATE TABLE matrix_inner_picks (run_id TEXT NOT NULL, setting TEXT NOT NULL, fold INTEGER NOT NULL, point INTEGER NOT NULL, picks TEXT NOT NULL, PRIMARY KEY (run_id, setting, fold, point));
CREATE TABLE matrix_task_chars (run_id TEXT NOT NULL, t INTEGER NOT NULL, chars INTEGER NOT NULL, PRIMARY KEY (run_id, t));
`;

// Tables a DB from before the nested choice lacks; reading it still works, with no chosen point.
const hasTable = (db: Database.Database, name: string) => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;

/** True when the SQLite file at `path` holds a matrix run (it has the matrix_run table). */
export function isMatrixRunDb(path: string): boolean {
  if (!existsSync(path)) return false;
  let db: Database.Database | null = null;
  try {
    db = openSqliteForReading(path);
    return holdsMatrixRun(db);
  } catch {
    return false;
  } finally {
    db?.close();
  }
}

/** True when the open SQLite DB `db` holds a matrix run (for a caller that reads the DB either way). */
export function holdsMatrixRun(db: Database.Database): boolean {
  return hasTable(db, 'matrix_run');
}

/** Writes a finished run to a new DB at `path` (refuses an existing file, as bench run does). */
export function writeMatrixRun(path: string, data: MatrixRunData): void {
  if (existsSync(path)) throw new SetupError(`${path}: already exists; bench run writes a new DB (choose another --db-path)`);
  const db = new Database(path);
  try {
    db.exec(SCHEMA);
    const run = data.provenance.run_id;
    db.transaction(() => {
      db.prepare('INSERT INTO matrix_run (run_id, provenance) VALUES (?, ?)').run(run, JSON.stringify(data.provenance));
      const task = db.prepare('INSERT INTO matrix_tasks (run_id, t, task_id, cluster, scores, costs_usd) VALUES (?, ?, ?, ?, ?, ?)');
      data.table.taskIds.forEach((id, t) => task.run(run, t, id, data.table.clusters[t]!, JSON.stringify(data.table.score[t]), JSON.stringify(data.table.cost[t]!.map((c) => c.toFixed()))));
      const pick = db.prepare('INSERT INTO matrix_picks (run_id, setting, point, cost_weight, picks) VALUES (?, ?, ?, ?, ?)');
      const store = db.prepare('INSERT INTO matrix_stores (run_id, setting, outcomes_max, fingerprints_max, stores) VALUES (?, ?, ?, ?, ?)');
      const layout = db.prepare('INSERT INTO matrix_layout (run_id, setting, folds, arrival) VALUES (?, ?, ?, ?)');
      const inner = db.prepare('INSERT INTO matrix_inner_picks (run_id, setting, fold, point, picks) VALUES (?, ?, ?, ?, ?)');
      for (const s of data.settings) {
        s.picks.forEach((p, i) => pick.run(run, s.setting, i, data.provenance.cost_weights[i]!, p.join(',')));
        store.run(run, s.setting, s.store.outcomes_max, s.store.fingerprints_max, s.store.stores);
        layout.run(run, s.setting, s.folds ? s.folds.join(',') : null, s.order ? s.order.join(',') : null);
        s.nested?.forEach((sweep, f) => sweep.forEach((p, i) => inner.run(run, s.setting, f, i, p.join(','))));
      }
      const chars = db.prepare('INSERT INTO matrix_task_chars (run_id, t, chars) VALUES (?, ?, ?)');
      data.chars?.forEach((c, t) => chars.run(run, t, c));
    })();
  } finally {
    db.close();
  }
}

/** Reads a matrix run back (the latest run unless `runId` is given); errors name the DB and the fix. */
export function readMatrixRun(path: string, runId?: string): MatrixRunData {
  if (!existsSync(path)) throw new SetupError(`${path}: no such DB`);
  const db = openSqliteForReading(path);
  try {
    const runs = db.prepare('SELECT run_id, provenance FROM matrix_run ORDER BY rowid').all() as { run_id: string; provenance: string }[];
    if (runs.length === 0) throw new SetupError(`${path}: holds no matrix run (was it written by bench run --workload <matrix>?)`);
    const row = runId ? runs.find((r) => r.run_id === runId) : runs.at(-1);
    if (!row) throw new SetupError(`${path}: no run '${runId}'; runs: ${runs.map((r) => r.run_id).join(', ')}`);
    const provenance = JSON.parse(row.provenance) as MatrixReport['provenance'];
    const tasks = db.prepare('SELECT task_id, cluster, scores, costs_usd FROM matrix_tasks WHERE run_id = ? ORDER BY t').all(row.run_id) as { task_id: string; cluster: string; scores: string; costs_usd: string }[];
    const cost = tasks.map((t) => (JSON.parse(t.costs_usd) as string[]).map((c) => new Decimal(c)));
    const table: OutcomeTable = {
      models: provenance.models,
      taskIds: tasks.map((t) => t.task_id),
      clusters: tasks.map((t) => t.cluster),
      score: tasks.map((t) => JSON.parse(t.scores) as number[]),
      cost,
      costF: cost.map((r) => r.map((c) => c.toNumber())),
    };
    const picks = db.prepare('SELECT setting, point, picks FROM matrix_picks WHERE run_id = ? ORDER BY setting, point').all(row.run_id) as { setting: SettingName; point: number; picks: string }[];
    const stores = db.prepare('SELECT setting, outcomes_max, fingerprints_max, stores FROM matrix_stores WHERE run_id = ? ORDER BY rowid').all(row.run_id) as ({ setting: SettingName } & SettingRun['store'])[];
    const nums = (x: string) => (x === '' ? [] : x.split(',').map(Number));
    const layouts = hasTable(db, 'matrix_layout') ? (db.prepare('SELECT setting, folds, arrival FROM matrix_layout WHERE run_id = ?').all(row.run_id) as { setting: SettingName; folds: string | null; arrival: string | null }[]) : [];
    const inner = hasTable(db, 'matrix_inner_picks') ? (db.prepare('SELECT setting, fold, point, picks FROM matrix_inner_picks WHERE run_id = ? ORDER BY setting, fold, point').all(row.run_id) as { setting: SettingName; fold: number; point: number; picks: string }[]) : [];
    const settings: SettingRun[] = stores.map((s) => {
      const run: SettingRun = {
        setting: s.setting,
        store: { outcomes_max: s.outcomes_max, fingerprints_max: s.fingerprints_max, stores: s.stores },
        picks: picks.filter((p) => p.setting === s.setting).map((p) => nums(p.picks)),
      };
      const l = layouts.find((x) => x.setting === s.setting);
      if (l?.folds) run.folds = nums(l.folds);
      if (l?.arrival) run.order = nums(l.arrival);
      const mine = inner.filter((x) => x.setting === s.setting);
      if (mine.length) {
        const nested: number[][][] = [];
        for (const x of mine) (nested[x.fold] ??= [])[x.point] = nums(x.picks);
        run.nested = nested;
      }
      return run;
    });
    const chars = hasTable(db, 'matrix_task_chars') ? (db.prepare('SELECT chars FROM matrix_task_chars WHERE run_id = ? ORDER BY t').all(row.run_id) as { chars: number }[]).map((c) => c.chars) : [];
    return { provenance, table, settings, ...(chars.length === table.taskIds.length ? { chars } : {}) };
  } finally {
    db.close();
  }
}
