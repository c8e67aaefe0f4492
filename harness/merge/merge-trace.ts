import type Database from 'better-sqlite3';
import type { Provenance } from '../../schemas/types/report.ts';
import { RunJobs } from '../runs/run-jobs.ts';
import { RunStore } from '../runs/run-store.ts';
import { TRACE_SCHEMA_VERSION } from '../../runtime/trace/index.ts';
import { SetupError } from '../errors.ts';
import { reconcileRunInputs } from '../runs/run-inputs.ts';
import { sealRun, type SealOptions } from '../runs/run-seal.ts';
import type { MergeInput } from './merge-inputs.ts';

/** Tables the merge writes itself rather than copying row for row (the lease is never carried over). */
const OWN = new Set(['bench_runs', 'bench_run_jobs', 'bench_run_inputs', 'bench_run_seal', 'bench_run_lease']);

function columns(db: Database.Database, schema: string, table: string): string[] {
  return (db.prepare(`PRAGMA ${schema}.table_info(${JSON.stringify(table)})`).all() as { name: string }[]).map((c) => c.name);
}

/**
 * Copies every table of every input into `out` (events, sessions, workload_runs and whatever else a
 * run writes), creating tables and indexes as the input defines them; rows already present (same
 * primary key) are kept once. Then writes one bench_runs row for the merged run and its job plan.
 */
export function mergeTrace(out: Database.Database, inputs: readonly MergeInput[], covered: readonly string[], provenance: Provenance, seal: SealOptions): void {
  // Rows are copied table by table; the inputs already satisfied their foreign keys.
  out.pragma('foreign_keys = OFF');
  for (const input of inputs) {
    out.prepare('ATTACH DATABASE ? AS src').run(input.path);
    try {
      const objects = out.prepare("SELECT type, name, tbl_name, sql FROM src.sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY type = 'index'").all() as { type: string; name: string; tbl_name: string; sql: string }[];
      out.transaction(() => {
        for (const o of objects) {
          if (o.type === 'table' && !OWN.has(o.name)) {
            const exists = out.prepare("SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = ?").get(o.name);
            if (!exists) out.exec(o.sql);
            const cols = columns(out, 'src', o.name).filter((c) => columns(out, 'main', o.name).includes(c));
            const list = cols.map((c) => JSON.stringify(c)).join(', ');
            try {
              out.exec(`INSERT INTO main.${JSON.stringify(o.name)} (${list}) SELECT ${list} FROM src.${JSON.stringify(o.name)}`);
            } catch (e) {
              if (!String((e as { code?: unknown }).code ?? '').startsWith('SQLITE_CONSTRAINT')) throw e;
              // Shards share no row: keeping the first one met would let the order of the arguments decide.
              throw new SetupError(`${input.path}: table ${o.name} holds a row whose key an earlier input also holds (${(e as Error).message}); shards of one run share no rows, so merge refuses rather than pick one`);
            }
          } else if (o.type === 'index' && !OWN.has(o.tbl_name)) {
            out.exec(o.sql.replace(/^CREATE (UNIQUE )?INDEX (IF NOT EXISTS )?/i, (_m, u: string | undefined) => `CREATE ${u ?? ''}INDEX IF NOT EXISTS `));
          }
        }
      })();
    } finally {
      out.exec('DETACH DATABASE src');
    }
  }
  const runs = new RunStore(out);
  const first = inputs[0]!;
  const createdAt = Math.min(...inputs.map((i) => i.createdAtUs));
  const union = (xs: string[][]) => [...new Set(xs.flat())];
  runs.saveRun(first.runId, createdAt, provenance, { warnings: union(inputs.map((i) => i.warnings)), recordingErrors: union(inputs.map((i) => i.recordingErrors)), status: 'complete' });
  const jobs = new RunJobs(out);
  jobs.ensure();
  jobs.savePlan(first.runId, first.plan, first.plan.filter((j) => covered.includes(j.pass)));
  // The inputs' workload digests are equal (checked): the merged run records them once, then is sealed as a finished run.
  if (first.inputs) reconcileRunInputs(out, first.runId, first.inputs, { dbPath: out.name, resume: false, acceptChanged: false });
  out.pragma(`user_version = ${TRACE_SCHEMA_VERSION}`);
  sealRun(out, first.runId, Date.now() * 1000, seal);
}
