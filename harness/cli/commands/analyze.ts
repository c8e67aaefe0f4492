import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import { createAnalytics } from '../../../runtime/analytics/index.ts';
import { loadPriceTable } from '../../../runtime/pricing/index.ts';
import { SetupError } from '../../errors.ts';
import { buildReport } from '../../report/build-report.ts';
import { renderReportTable } from '../../report/render-table.ts';
import { RunStore } from '../../runs/run-store.ts';
import type { CommandSpec } from '../command.ts';
import { defaultRoutingConfig } from '../../../runtime/routing/index.ts';
import { createMemoryLogger } from '../../../runtime/core/logger.ts';
import { createSystemClock } from '../../../runtime/core/clock.ts';
import { reportFingerprintSources } from '../../runner/pattern-checks.ts';
import { choosePatternStore, openRunPatternStore } from '../../runner/run-pattern-store.ts';

/** Opens an existing trace DB read-only, turning every way it can be wrong into a SetupError. */
function openExisting(path: string): Database.Database {
  if (!existsSync(path)) throw new SetupError(`${path}: no such trace DB`);
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    db.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (e) {
    throw new SetupError(`${path}: not a SQLite trace DB (${(e as Error).message})`);
  }
  return db;
}

/** `analyze --skip-execute`: every report number again from an existing trace DB, no model call. */
export const analyzeCommandSpec: CommandSpec = {
  name: 'analyze',
  description: 'Recompute a run\'s report from an existing trace DB, with no model calls (analyze = bench analyze).',
  configure(cmd) {
    cmd
      .requiredOption('--db-path <path>', 'the existing trace DB of a bench run')
      .option('--skip-execute', 'no model calls, analytics only (the only mode there is; accepted for the documented command line)', true)
      .option('--run <id>', 'which run in the DB (default: the latest)')
      .option('--patterns-db-path <path>', "the run's pattern store, for cluster tightness (default: the path the run recorded)")
      .option('--json <path>', 'also write the JSON report here');
  },
  async run(cmd, _args, io) {
    const o = cmd.opts<{ dbPath: string; run?: string; json?: string; patternsDbPath?: string }>();
    const path = resolve(io.cwd, o.dbPath);
    const db = openExisting(path);
    try {
      const runs = new RunStore(db, { create: false });
      const ids = runs.runIds();
      if (ids.length === 0) throw new SetupError(`${path}: no benchmark runs in this trace DB (was it written by bench run?)`);
      const runId = o.run ?? ids.at(-1)!;
      if (!ids.includes(runId)) throw new SetupError(`${path}: no run '${runId}'; runs: ${ids.join(', ')}`);
      const provenance = runs.provenance(runId);
      const recorded = provenance?.patterns_db_path ?? null;
      const patternsPath = o.patternsDbPath ? resolve(io.cwd, o.patternsDbPath) : recorded;
      // The store is opened as the run used it, so v2 tightness is recomputed with the same embedder and α.
      const choice = { ...choosePatternStore(defaultRoutingConfig(), {}), fingerprint_version: provenance?.fingerprint_version ?? 'v1', embedding_provider: provenance?.embedding_provider ?? null, embedding_alpha: provenance?.embedding_alpha ?? null };
      const patterns = patternsPath && existsSync(patternsPath) ? openRunPatternStore(patternsPath, choice, { logger: createMemoryLogger(), clock: createSystemClock(), env: io.env, canEmbed: false }) : null;
      let report;
      try {
        report = buildReport({ runs, analytics: createAnalytics(db, loadPriceTable()), runId, ...(patterns ? reportFingerprintSources(patterns, choice.embedding_alpha) : {}) });
      } finally {
        patterns?.close();
      }
      if (o.json) writeFileSync(resolve(io.cwd, o.json), `${JSON.stringify(report, null, 2)}\n`);
      io.out(renderReportTable(report, { json: o.json ? resolve(io.cwd, o.json) : null }));
      return report.exit_code;
    } finally {
      db.close();
    }
  },
};
