import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';
import { compareReports } from '../compare/index.ts';
import { SetupError } from '../errors.ts';
import { analyzeMatrixDb } from '../matrix/read-matrix-report.ts';
import { holdsMatrixRun } from '../matrix/matrix-run-db.ts';
import { sectionFor } from '../protocols/report-section.ts';
import { assertTraceDb, openSqliteReadOnly, reportFromDb, runIdsOf } from '../report/report-from-db.ts';
import { RunStore } from '../runs/run-store.ts';
import { formatAjvErrors, validatorFor } from '../../runtime/core/schemas.ts';
import type { CacheStreamReport } from '../../schemas/types/cache-stream-report.ts';
import type { MatrixReport } from '../../schemas/types/matrix-report.ts';
import { repDetail } from './rep-detail.ts';

/** The hosts `bench view` may listen on: loopback only, the trace DBs hold prompts and code. */
export const LOOPBACK_HOSTS = ['127.0.0.1', '::1', 'localhost'] as const;

/** What `startViewServer` needs: the DBs to serve and where to listen. */
export interface ViewServerOptions {
  dbPaths: readonly string[];
  host: string;
  /** 0 picks a free port. */
  port: number;
}

/** A running viewer; `close()` stops it and closes the DBs. */
export interface ViewServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** What a served file holds: a trace DB (agent runs), a matrix run's DB, or a cache stream report (JSON, no DB). */
type SourceKind = 'trace' | 'matrix' | 'streams';

/** A served file: open, or the error that keeps it from being read (the others are served all the same). */
interface OpenDb {
  path: string;
  name: string;
  kind: SourceKind;
  db: Database.Database | null;
  /** The stream report of a `streams` source. */
  streams: CacheStreamReport | null;
  error: string | null;
}

/** A cache stream report (`bench run --workload cache-*`), or null when the JSON is some other document. */
function readStreamReport(path: string): CacheStreamReport | null {
  const doc = JSON.parse(readFileSync(path, 'utf8')) as { kind?: unknown };
  if (doc?.kind !== 'cache_streams') return null;
  const check = validatorFor<CacheStreamReport>('cache-stream-report.schema.json');
  if (!check(doc)) throw new SetupError(`${path}: not a valid cache stream report (schemas/cache-stream-report.schema.json): ${formatAjvErrors(check.errors).slice(0, 2).join('; ')}`);
  return doc;
}

/** Opens one file on its own, so a damaged file shows its error instead of stopping the viewer. */
function openOne(path: string): OpenDb {
  const name = basename(path);
  const base = { path, name, db: null, streams: null, error: null };
  try {
    if (path.endsWith('.json')) {
      const streams = readStreamReport(path);
      if (!streams) return { ...base, kind: 'streams', error: `${name} is not a cache stream report; bench view reads trace DBs, matrix DBs and cache stream reports` };
      return { ...base, kind: 'streams', streams };
    }
    // One connection tells a matrix run's DB from a trace DB and then reads it, as analyze does (the file was
    // opened twice). A matrix DB holds no trace: its report is rebuilt from its own tables (as `bench report` does).
    const db = openSqliteReadOnly(path);
    let matrix: boolean;
    try {
      matrix = holdsMatrixRun(db);
    } catch (e) {
      db.close();
      throw e;
    }
    if (matrix) return { ...base, kind: 'matrix', db };
    return { ...base, kind: 'trace', db: assertTraceDb(db, path) };
  } catch (e) {
    return { ...base, kind: 'trace', error: (e as Error).message };
  }
}

/** The DB's handle, or its own error as a 404 that names it. */
function usable(d: OpenDb): Database.Database {
  if (!d.db) throw new SetupError(`${d.name} cannot be read: ${d.error ?? 'unknown error'}`);
  return d.db;
}

const UI_DIR = join(dirname(fileURLToPath(import.meta.url)), 'ui');
const require = createRequire(import.meta.url);

/** Static files: the page, its script, and the UI library (preact + htm) straight from node_modules, so nothing is fetched from the network. */
function staticFiles(): Map<string, { type: string; body: string }> {
  const js = 'text/javascript; charset=utf-8';
  return new Map([
    ['/', { type: 'text/html; charset=utf-8', body: readFileSync(join(UI_DIR, 'index.html'), 'utf8') }],
    ['/app.js', { type: js, body: readFileSync(join(UI_DIR, 'app.js'), 'utf8') }],
    ['/vendor/preact.mjs', { type: js, body: readFileSync(require.resolve('preact'), 'utf8') }],
    // The hooks module imports the bare specifier "preact"; point it at our copy (an import map would need an inline script, which the CSP forbids).
    ['/vendor/hooks.mjs', { type: js, body: readFileSync(require.resolve('preact/hooks'), 'utf8').replace(/from\s*["']preact["']/g, 'from"/vendor/preact.mjs"') }],
    ['/vendor/htm.mjs', { type: js, body: readFileSync(join(dirname(require.resolve('htm')), 'htm.mjs'), 'utf8') }],
  ]);
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, {
    'content-type': type,
    // Everything the page needs comes from this server; no inline script, no remote fetch.
    'content-security-policy': "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:",
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
  });
  res.end(body);
}

function json(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));
}

/** Commit and dirtiness as one line of a run page: `abc123… (dirty)`, or null when not recorded. */
function commitOf(sha: string | null | undefined, dirty: boolean | null | undefined): string | null {
  if (!sha) return null;
  return dirty ? `${sha} (dirty)` : sha;
}

/** One DB's runs, newest last, as the viewer's index lists them; throws what keeps them from being read. */
function runsOf(d: OpenDb, index: number): unknown[] {
  if (d.kind === 'streams') {
    const r = d.streams!;
    return [{ db: index, db_name: d.name, kind: 'streams', run_id: d.name.replace(/\.json$/, ''), status: r.streams.some((x) => x.status === 'interrupted') ? 'interrupted' : 'complete', started_at: null, protocol: 'query streams', provider: r.provider, model: null, workloads: r.streams.length, reps: r.streams.reduce((n, x) => n + x.figures.queries, 0), unit: 'queries' }];
  }
  const db = usable(d);
  if (d.kind === 'matrix') {
    const rows = db.prepare('SELECT run_id, provenance FROM matrix_run ORDER BY rowid').all() as { run_id: string; provenance: string }[];
    return rows.map((row) => {
      const p = JSON.parse(row.provenance) as MatrixReport['provenance'];
      return { db: index, db_name: d.name, kind: 'matrix', run_id: row.run_id, status: 'complete', started_at: p.started_at, protocol: 'matrix', provider: 'recorded outcomes', model: p.matrix, workloads: 1, reps: p.tasks, unit: 'tasks' };
    });
  }
  const runs = new RunStore(db, { create: false });
  return runIdsOf(db, d.path).map((run_id) => {
    const p = runs.provenance(run_id);
    const reps = runs.workloadRuns(run_id);
    return {
      db: index,
      db_name: d.name,
      kind: 'trace',
      run_id,
      status: runs.status(run_id),
      started_at: p?.started_at ?? null,
      protocol: p?.protocol ?? null,
      provider: p?.actual_provider ?? null,
      model: p?.actual_model ?? null,
      workloads: new Set(reps.map((r) => r.workload)).size,
      reps: reps.length,
    };
  });
}

/** The runs of every served DB, and per DB that cannot be read, its error: one damaged file hides only itself. */
function listRuns(dbs: readonly OpenDb[]): { runs: unknown[]; errors: { db: number; db_name: string; error: string }[] } {
  const runs: unknown[] = [];
  const errors: { db: number; db_name: string; error: string }[] = [];
  dbs.forEach((d, index) => {
    try {
      runs.push(...runsOf(d, index));
    } catch (e) {
      errors.push({ db: index, db_name: d.name, error: (e as Error).message });
    }
  });
  return { runs, errors };
}

function dbAt(dbs: readonly OpenDb[], raw: string | null): OpenDb {
  const d = dbs[Number(raw)];
  if (raw === null || !/^\d+$/.test(raw) || !d) throw new SetupError(`no DB number ${raw ?? '(missing)'}; there are ${dbs.length}`);
  return d;
}

function route(dbs: readonly OpenDb[], url: URL): unknown {
  const q = url.searchParams;
  switch (url.pathname) {
    case '/api/runs':
      return { dbs: dbs.map((d) => d.name), ...listRuns(dbs) };
    case '/api/report': {
      const d = dbAt(dbs, q.get('db'));
      const report = reportFromDb(usable(d), d.name, { run: q.get('run') ?? undefined, sectionOf: sectionFor });
      return { ...report, commit: commitOf(report.provenance.metis_commit_sha, report.provenance.metis_dirty) };
    }
    case '/api/matrix': {
      const d = dbAt(dbs, q.get('db'));
      if (d.kind !== 'matrix') throw new SetupError(`${d.name} holds no matrix run`);
      usable(d);
      const report = analyzeMatrixDb(d.path, q.get('run') ?? undefined);
      return { report, commit: commitOf(report.provenance.metis_commit_sha, report.provenance.metis_dirty), command: `npx bench report ${d.path}` };
    }
    case '/api/streams': {
      const d = dbAt(dbs, q.get('db'));
      if (d.kind !== 'streams' || !d.streams) throw new SetupError(`${d.name} is not a cache stream report${d.error ? `: ${d.error}` : ''}`);
      const p = d.streams.provenance;
      return { report: d.streams, commit: commitOf(p?.metis_commit_sha, p?.metis_dirty), command: `npx bench analyze --skip-execute --stream-report ${d.path}` };
    }
    case '/api/rep': {
      const d = dbAt(dbs, q.get('db'));
      const run = q.get('run') ?? '';
      const [workload, pass, rep] = [q.get('workload'), q.get('pass'), Number(q.get('rep'))];
      const record = new RunStore(usable(d), { create: false }).workloadRuns(run).find((r) => r.workload === workload && r.pass === pass && r.rep === rep);
      if (!record) throw new SetupError(`no rep ${rep + 1} of ${workload ?? '?'} in pass ${pass ?? '?'} of run ${run} (${d.name})`);
      return repDetail(usable(d), record);
    }
    case '/api/compare': {
      const side = (key: 'a' | 'b') => {
        const [db, run] = (q.get(key) ?? '').split(':');
        const d = dbAt(dbs, db ?? null);
        return { report: reportFromDb(usable(d), d.name, { run, sectionOf: sectionFor }), path: null, label: `${d.name}:${run}` };
      };
      return compareReports(side('a'), side('b'));
    }
    default:
      return undefined;
  }
}

/**
 * Serves a read-only viewer over trace DBs: the runs, a run's report, a compare of two runs, one rep in full.
 * Listens on loopback only and opens every DB for reading only (openSqliteReadOnly); a Host header other than the loopback address it
 * listens on is refused, so a web page elsewhere cannot reach it through DNS rebinding.
 */
export async function startViewServer(options: ViewServerOptions): Promise<ViewServer> {
  if (!(LOOPBACK_HOSTS as readonly string[]).includes(options.host)) {
    throw new SetupError(`--host ${options.host}: bench view serves on loopback only (${LOOPBACK_HOSTS.join(', ')}); the trace DBs hold prompts, code and tool output`);
  }
  if (options.dbPaths.length === 0) throw new SetupError('no trace DB to view: pass DB paths, or run `npx bench run` first (DBs go to reports/.runs/)');
  const dbs = options.dbPaths.map(openOne);
  // Nothing to serve when no DB opens: say why for each, as one setup error.
  if (dbs.every((d) => d.error)) throw new SetupError(dbs.map((d) => `${d.path}: ${d.error}`).join('\n'));
  const files = staticFiles();
  let allowedHosts: Set<string> = new Set();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (!allowedHosts.has(req.headers.host ?? '')) return send(res, 403, 'text/plain', 'forbidden host');
    if (req.method !== 'GET') return send(res, 405, 'text/plain', 'read-only viewer: GET only');
    const url = new URL(req.url ?? '/', 'http://viewer');
    const file = files.get(url.pathname);
    if (file) return send(res, 200, file.type, file.body);
    try {
      const body = route(dbs, url);
      if (body === undefined) return json(res, 404, { error: `no such page: ${url.pathname}` });
      return json(res, 200, body);
    } catch (e) {
      return json(res, e instanceof SetupError ? 404 : 500, { error: (e as Error).message });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => {
      for (const d of dbs) d.db?.close();
      // A busy port is a setup problem with a one-line fix, not a stack trace.
      if (e.code === 'EADDRINUSE') reject(new SetupError(`port ${options.port} on ${options.host} is in use (another bench view?): pass --port 0 for any free port, or --port N`));
      else if (e.code === 'EACCES') reject(new SetupError(`port ${options.port} on ${options.host} needs privileges: pass --port 0 for any free port, or a port above 1023`));
      else reject(e);
    });
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const hostForUrl = options.host === '::1' ? '[::1]' : options.host;
  allowedHosts = new Set([`${hostForUrl}:${port}`, `localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]);
  return {
    url: `http://${hostForUrl}:${port}/`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          for (const d of dbs) d.db?.close();
          resolve();
        });
      }),
  };
}
