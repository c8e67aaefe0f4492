import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SetupError } from '../../harness/errors.ts';
import { startViewServer, type ViewServer } from '../../harness/view/view-server.ts';
import type { RepDetail } from '../../harness/view/rep-detail.ts';
import { bench, tempDir } from '../support/cli.ts';
import { sharedRun } from '../support/shared-run.ts';

const ENV = { PATH: process.env.PATH };
const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** GET with an explicit Host header (fetch cannot set it), for the DNS-rebinding guard. */
function getWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

let db: string;
let server: ViewServer;
let before: string;

beforeAll(async () => {
  // A delegation workload: a worker session, tool calls and a hidden check in one small run.
  // The run only feeds what this file reads: shared with the other files that read the same run (built once).
  db = await sharedRun(['--workload', 'fix-a-bug-small', '--workload', 'multi-step-with-delegation', '--quiet'], ENV);
  before = sha(db);
  server = await startViewServer({ dbPaths: [db], host: '127.0.0.1', port: 0 });
}, 180_000);

afterAll(async () => {
  await server?.close();
});

async function api<T>(path: string): Promise<T> {
  const res = await fetch(new URL(path, server.url));
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as T;
}

describe('bench view', () => {
  it('lists the run and serves its report', async () => {
    const runs = await api<{ runs: { run_id: string; db: number; reps: number }[] }>('/api/runs');
    expect(runs.runs).toHaveLength(1);
    expect(runs.runs[0]!.reps).toBe(2);
    const report = await api<{ workloads: { workload: string }[] }>(`/api/report?db=0&run=${runs.runs[0]!.run_id}`);
    expect(report.workloads.map((w) => w.workload).sort()).toEqual(['fix-a-bug-small', 'multi-step-with-delegation']);
  });

  it('shows one rep in full: routing chain, LLM calls with cost, tool inputs and results, the check output', async () => {
    const { runs } = await api<{ runs: { run_id: string }[] }>('/api/runs');
    const rep = await api<RepDetail>(`/api/rep?db=0&run=${runs[0]!.run_id}&workload=fix-a-bug-small&pass=single&rep=0`);
    expect(rep.has_transcript).toBe(true);
    const turn = rep.sessions[0]!.turns[0]!;
    expect(turn.chain.map((c) => c.policy)).toContain('manual_sticky');
    expect(turn.llm_calls.length).toBeGreaterThan(0);
    expect(Number(turn.llm_calls[0]!.cost_usd)).toBeGreaterThan(0);
    const tool = turn.tool_calls.find((t) => t.name === 'read_file' || t.name === 'edit_file' || t.name === 'run_shell');
    expect(tool?.input).not.toBeNull();
    expect(typeof tool?.result).toBe('string');
    expect(rep.record.check?.output_tail.length ?? 0).toBeGreaterThan(0);
  });

  it('shows worker sessions of a delegating rep', async () => {
    const { runs } = await api<{ runs: { run_id: string }[] }>('/api/runs');
    const rep = await api<RepDetail>(`/api/rep?db=0&run=${runs[0]!.run_id}&workload=multi-step-with-delegation&pass=single&rep=0`);
    expect(rep.sessions.length).toBeGreaterThan(1);
  });

  it('answers a missing rep with 404 and a message that names it', async () => {
    const { runs } = await api<{ runs: { run_id: string }[] }>('/api/runs');
    const res = await fetch(new URL(`/api/rep?db=0&run=${runs[0]!.run_id}&workload=nope&pass=single&rep=0`, server.url));
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toMatch(/no rep 1 of nope/);
  });

  it('a busy port is one setup error naming --port 0, not a stack trace', async () => {
    const busy = Number(new URL(server.url).port);
    const e = await startViewServer({ dbPaths: [db], host: '127.0.0.1', port: busy }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(SetupError);
    expect((e as Error).message).toBe(`port ${busy} on 127.0.0.1 is in use (another bench view?): pass --port 0 for any free port, or --port N`);
  });

  it('listens on loopback only and refuses foreign Host headers (DNS rebinding)', async () => {
    expect(new URL(server.url).hostname).toBe('127.0.0.1');
    await expect(startViewServer({ dbPaths: [db], host: '0.0.0.0', port: 0 })).rejects.toThrow(/loopback only/);
    expect(await getWithHost(new URL('/api/runs', server.url).toString(), 'evil.example:80')).toBe(403);
    const post = await fetch(new URL('/api/runs', server.url), { method: 'POST' });
    expect(post.status).toBe(405);
  });

  it('never writes to the DB', async () => {
    const { runs } = await api<{ runs: { run_id: string }[] }>('/api/runs');
    await api(`/api/report?db=0&run=${runs[0]!.run_id}`);
    await api(`/api/compare?a=0:${runs[0]!.run_id}&b=0:${runs[0]!.run_id}`);
    expect(sha(db)).toBe(before);
    expect(existsSync(`${db}-wal`) ? readFileSync(`${db}-wal`).length : 0).toBe(0);
  });

  it('closed, leaves the folder of the DB it served as it found it: no -wal or -shm beside the DB', async () => {
    const dir = tempDir('view-folder-');
    const copy = join(dir, 'run.db');
    cpSync(db, copy);
    const own = await startViewServer({ dbPaths: [copy], host: '127.0.0.1', port: 0 });
    try {
      const runs = (await (await fetch(new URL('/api/runs', own.url))).json()) as { runs: { run_id: string }[] };
      const res = await fetch(new URL(`/api/report?db=0&run=${runs.runs[0]!.run_id}`, own.url));
      expect(res.status).toBe(200);
    } finally {
      await own.close();
    }
    expect(readdirSync(dir)).toEqual(['run.db']);
    expect(sha(copy)).toBe(before);
  });

  it('serves a DB a live writer is writing: reads the last commit during the write, sees it once committed, and neither blocks the other', async () => {
    const dir = tempDir('view-live-');
    const copy = join(dir, 'run.db');
    cpSync(db, copy);
    const own = await startViewServer({ dbPaths: [copy], host: '127.0.0.1', port: 0 });
    const writer = new Database(copy);
    try {
      const reportOf = async () => {
        const runs = (await (await fetch(new URL('/api/runs', own.url))).json()) as { runs: { run_id: string }[] };
        const res = await fetch(new URL(`/api/report?db=0&run=${runs.runs[0]!.run_id}`, own.url));
        expect(res.status, await res.clone().text()).toBe(200);
        return (await res.json()) as { workloads: { workload: string; llm_calls: number }[] };
      };
      const calls = (r: { workloads: { workload: string; llm_calls: number }[] }) => r.workloads.find((w) => w.workload === 'fix-a-bug-small')!.llm_calls;
      const first = calls(await reportOf());
      // A writer in the middle of a transaction: one more LLM call in a session of the first workload (a copy of one of its rows).
      const session = (writer.prepare("SELECT session_ids_json FROM workload_runs WHERE workload = 'fix-a-bug-small' LIMIT 1").pluck().get() as string).match(/"([^"]+)"/)![1]!;
      writer.exec('BEGIN IMMEDIATE');
      writer
        .prepare("INSERT INTO events (id, timestamp_us, session_id, turn_id, parent_event_id, type, actor, sensitivity, payload_json) SELECT id || '-copy', timestamp_us, session_id, turn_id, parent_event_id, type, actor, sensitivity, payload_json FROM events WHERE session_id = ? AND type = 'llm.call_completed' LIMIT 1")
        .run(session);
      // Served meanwhile from the last commit, not blocked by the writer's lock.
      expect(calls(await reportOf())).toBe(first);
      // The writer commits and checkpoints the whole WAL while the viewer holds its connection: not blocked either.
      writer.exec('COMMIT');
      expect(writer.pragma('wal_checkpoint(TRUNCATE)')).toEqual([{ busy: 0, log: 0, checkpointed: 0 }]);
      // The row changed the sealed events, so every payload is checked again, and the new call is counted.
      expect(calls(await reportOf())).toBe(first + 1);
    } finally {
      await own.close();
    }
    // The writer is still open: the viewer's close left it its -wal and -shm; the writer's own close removes them.
    expect(readdirSync(dir).sort()).toEqual(['run.db', 'run.db-shm', 'run.db-wal']);
    writer.close();
    expect(readdirSync(dir)).toEqual(['run.db']);
  });

  it('serves the page and its UI library itself: no request leaves the machine', async () => {
    const page = await (await fetch(server.url)).text();
    expect(page).toContain('/app.js');
    expect(page).not.toMatch(/https?:\/\//);
    for (const path of ['/app.js', '/vendor/preact.mjs', '/vendor/hooks.mjs', '/vendor/htm.mjs']) {
      const res = await fetch(new URL(path, server.url));
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/javascript/);
    }
  });

  it('bench view refuses a missing DB with exit 2', async () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'x'));
    writeFileSync(join(cwd, 'x', 'not.db'), 'hello');
    const r = await bench(['view', join(cwd, 'missing.db')], { env: ENV, cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/missing\.db: no such trace DB/);
  });

  it('one damaged DB shows its own error while the others keep working', async () => {
    const cwd = tempDir();
    const damaged = join(cwd, 'damaged.db');
    writeFileSync(damaged, Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(8192, 0xab)]));
    const both = await startViewServer({ dbPaths: [damaged, db], host: '127.0.0.1', port: 0 });
    try {
      const res = await fetch(new URL('/api/runs', both.url));
      expect(res.status).toBe(200);
      const body = (await res.json()) as { dbs: string[]; runs: { db: number; run_id: string }[]; errors: { db: number; db_name: string; error: string }[] };
      expect(body.dbs).toEqual(['damaged.db', 'run.db']);
      expect(body.runs.length).toBeGreaterThan(0);
      expect(body.runs.every((r) => r.db === 1)).toBe(true);
      expect(body.errors).toEqual([{ db: 0, db_name: 'damaged.db', error: expect.stringContaining('damaged.db') }]);
      // The good DB's report still opens; the damaged one answers with its error, not a 500 stack.
      const run = body.runs[0]!.run_id;
      expect((await fetch(new URL(`/api/report?db=1&run=${run}`, both.url))).status).toBe(200);
      const bad = await fetch(new URL(`/api/report?db=0&run=${run}`, both.url));
      expect(bad.status).toBe(404);
      expect(((await bad.json()) as { error: string }).error).toContain('damaged.db cannot be read');
    } finally {
      await both.close();
    }
  });

  it('refuses to start only when no DB at all can be read, naming each', async () => {
    const cwd = tempDir();
    const a = join(cwd, 'a.db');
    writeFileSync(a, 'hello');
    await expect(startViewServer({ dbPaths: [a, join(cwd, 'missing.db')], host: '127.0.0.1', port: 0 })).rejects.toThrow(/a\.db: [\s\S]*missing\.db: /);
  });
});
