import { resolve } from 'node:path';
import type { Database } from 'better-sqlite3';
import type { CommandSpec } from '../command.ts';
import { addForceOption, addWidthOptions, freshOutputPath, tableWidth } from '../parse-args.ts';
import { SetupError } from '../../errors.ts';
import { writeJsonFile } from '../../io/write-json-file.ts';

// The library is imported where each path needs it, so `analyze --help` does not load SQLite, the
// report builder or the matrix protocol, and a stream report does not load the trace store.

/** `analyze --skip-execute`: every report number again from an existing trace DB, no model call. */
export const analyzeCommandSpec: CommandSpec = {
  configure(cmd) {
    cmd
      .option('--db-path <path>', 'the existing trace DB of a bench run (agent workloads)')
      .option('--stream-report <path>', 'a cache stream report (the JSON `bench run --workload cache-*` wrote): recompute every figure from its per-query records')
      .option('--markdown', 'with --stream-report: print the tables as Markdown', false)
      .option('--skip-execute', 'no model calls, analytics only (the only mode there is; accepted for the documented command line)', true)
      .option('--run <id>', 'which run in the DB (default: the latest)')
      .option('--patterns-db-path <path>', "the run's pattern store, for cluster tightness (default: the path the run recorded)")
      .option('--json <path>', 'also write the JSON report here (refused if the file exists, unless --force)');
    addWidthOptions(cmd);
    addForceOption(cmd);
  },
  async run(cmd, _args, io) {
    const o = cmd.opts<{ dbPath?: string; streamReport?: string; markdown: boolean; run?: string; json?: string; patternsDbPath?: string; width?: number; wide?: boolean; force: boolean }>();
    if (o.streamReport && o.dbPath) throw new SetupError('analyze: give --db-path (a trace DB) or --stream-report (a cache stream report), not both');
    if (o.streamReport) {
      const { analyzeStreamReport } = await import('./analyze/analyze-stream-report.ts');
      return analyzeStreamReport(resolve(io.cwd, o.streamReport), io, o.markdown ? 'markdown' : 'text', tableWidth(o, io));
    }
    if (!o.dbPath) throw new SetupError('analyze: --db-path <trace DB> is required (or --stream-report <file> for a cache stream run)');
    const path = resolve(io.cwd, o.dbPath);
    const [{ holdsMatrixRun }, { assertTraceDb, openSqliteReadOnly, openTraceDbReadOnly, reportFromDb }] = await Promise.all([import('../../matrix/matrix-run-db.ts'), import('../../report/report-from-db.ts')]);
    // One connection tells a matrix DB from a trace DB and then reads the trace DB (opening a second was ~1 ms of
    // a cold analyze). A file it cannot open is left to openTraceDbReadOnly below, which says why, after --json's check.
    let opened: Database | null = null;
    try {
      opened = openSqliteReadOnly(path);
    } catch (e) {
      if (!(e instanceof SetupError)) throw e;
    }
    if (opened && holdsMatrixRun(opened)) {
      opened.close();
      const [{ analyzeMatrixDb, modelNames }, { renderMatrixText }] = await Promise.all([import('../../matrix/read-matrix-report.ts'), import('../../matrix/render-matrix.ts')]);
      const report = analyzeMatrixDb(path, o.run);
      if (o.json) writeJsonFile(resolve(io.cwd, o.json), report);
      io.out(renderMatrixText(report, { json: o.json ? resolve(io.cwd, o.json) : null, db: path, width: tableWidth(o, io), names: modelNames(report) }));
      return 0;
    }
    let jsonPath: string | null;
    try {
      jsonPath = o.json ? freshOutputPath(io.cwd, o.json, { flag: '--json', force: o.force }) : null;
    } catch (e) {
      opened?.close();
      throw e;
    }
    // The protocols' report sections only: their run code (runner, sandbox, tools) is never loaded here.
    const [{ renderReportTable }, { sectionFor }] = await Promise.all([import('../../report/render-table.ts'), import('../../protocols/report-section.ts')]);
    // reportFromDb checks the values of the run it reports; the DB's other runs (a hundred nights) are not read.
    const db = opened ? assertTraceDb(opened, path, { values: 'per-run' }) : openTraceDbReadOnly(path, { values: 'per-run' });
    try {
      const report = reportFromDb(db, path, { run: o.run, patternsDbPath: o.patternsDbPath ? resolve(io.cwd, o.patternsDbPath) : null, sectionOf: sectionFor });
      if (jsonPath) writeJsonFile(jsonPath, report);
      io.out(renderReportTable(report, { json: jsonPath, width: tableWidth(o, io) }));
      if (report.status === 'interrupted') io.err(await interruptedSummary(path, report.provenance.run_id, db));
      return report.exit_code;
    } finally {
      db.close();
    }
  },
};

/** What an interrupted run holds and how to continue it. */
async function interruptedSummary(path: string, runId: string, db: Database): Promise<string> {
  const [{ RunJobs }, { jobKey }] = await Promise.all([import('../../runs/run-jobs.ts'), import('../../jobs/shard.ts')]);
  const jobs = new RunJobs(db);
  const plan = jobs.plan(runId)?.filter((j) => j.mine) ?? null;
  const committed = jobs.committed(runId);
  const finished = [...committed.values()].filter((c) => !c.stopped).length;
  const missing = plan ? plan.filter((j) => !committed.has(jobKey(j))).map((j) => `${j.pass}/${j.workload}/rep ${j.rep}`) : [];
  const holds = plan
    ? `it holds ${finished} of its ${plan.length} planned rep(s); not finished: ${missing.slice(0, 8).join(', ') || 'none'}${missing.length > 8 ? ', ...' : ''}`
    : `it holds ${finished} finished rep(s)`;
  return `interrupted: run ${runId} never finished (killed, crashed, or still running elsewhere); ${holds}. Continue it with: bench run --resume ${path}`;
}
