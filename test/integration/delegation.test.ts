import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import { bench, tempDir } from '../support/cli.ts';
import { competentOnly, copyWorkloads, rewriteSim } from '../support/workload-variants.ts';

const NAME = 'multi-step-with-delegation';
const ENV = { PATH: process.env.PATH };
const read = (db: string) => JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;
type Row = { id: string; type: string; session_id: string; parent_event_id: string | null; payload: Record<string, unknown> };

function events(db: string): Row[] {
  const conn = new Database(db, { readonly: true });
  const rows = conn.prepare('SELECT id, type, session_id, parent_event_id, payload_json FROM events ORDER BY id').all() as (Omit<Row, 'payload'> & { payload_json: string })[];
  conn.close();
  return rows.map(({ payload_json, ...r }) => ({ ...r, payload: JSON.parse(payload_json) as Record<string, unknown> }));
}

describe('delegation (catalog §6.8, §8.3)', () => {
  it('follows the §8.3 event chain, and the workers\' spend counts in the workload', async () => {
    const dir = copyWorkloads([NAME]);
    rewriteSim(dir, NAME, competentOnly);
    const db = join(tempDir(), 'd.db');
    const r = await bench(['run', '--workloads-dir', dir, '--workload', NAME, '--db-path', db], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    const rep = read(db).workloads[0]!.reps[0]!;
    expect(rep.check?.passed).toBe(true);
    expect(rep.session_ids).toHaveLength(3); // the planner and two workers

    const ev = events(db);
    const byId = new Map(ev.map((e) => [e.id, e]));
    const planner = rep.session_ids[0]!;
    const started = ev.filter((e) => e.type === 'delegate.started');
    expect(started).toHaveLength(2);
    for (const s of started) {
      expect(byId.get(s.parent_event_id!)!.type).toBe('llm.call_completed');
      expect(s.session_id).toBe(planner);
      const worker = String(s.payload.worker_session_id);
      const workerEvents = ev.filter((e) => e.session_id === worker).map((e) => e.type);
      expect(workerEvents.slice(0, 3)).toEqual(['session.created', 'turn.started', 'route.decided']);
      // Only the learning loop's pattern.recorded follows the worker's session.ended.
      expect(workerEvents.filter((t) => !t.startsWith('pattern.')).at(-1)).toBe('session.ended');
      const route = ev.find((e) => e.session_id === worker && e.type === 'route.decided')!;
      const chain = route.payload.chain as { policy: string; verdict: string; candidate_model: string }[];
      // --protocol single pins --model for every session, workers included (issue 11): the tier's slot defers to it.
      expect(chain.find((c) => c.verdict === 'chose')).toMatchObject({ policy: 'manual_sticky', candidate_model: 'anthropic:claude-haiku-4-5' });
      expect(chain.find((c) => c.policy === 'delegate_request')).toMatchObject({ verdict: 'deferred', candidate_model: s.payload.resolved_model });
      expect(ev.filter((e) => e.session_id === worker && e.type === 'llm.call_started').every((e) => e.payload.is_worker === true)).toBe(true);
      const done = ev.find((e) => e.type === 'delegate.completed' && e.payload.worker_session_id === worker)!;
      expect(done.parent_event_id).toBe(s.id);
      // The worker's session ended before the planner heard back.
      const workerEnd = ev.find((e) => e.session_id === worker && e.type === 'session.ended')!;
      expect(workerEnd.id < done.id).toBe(true);
    }

    // Savings of the rep = every llm.call_completed of the planner and its workers, re-priced.
    const workerCost = ev.filter((e) => e.type === 'llm.call_completed' && e.session_id !== planner).reduce((a, e) => a.plus(String(e.payload.cost_usd)), new Decimal(0));
    const allCost = ev.filter((e) => e.type === 'llm.call_completed').reduce((a, e) => a.plus(String(e.payload.cost_usd)), new Decimal(0));
    expect(workerCost.gt(0)).toBe(true);
    expect(new Decimal(rep.savings.actual_repriced_usd).equals(allCost)).toBe(true);
  });

  it('a failing worker gives delegate.failed and the planner carries on', async () => {
    const dir = copyWorkloads([NAME]);
    // No worker scripts: every worker's first call fails in the emulator.
    rewriteSim(dir, NAME, (s) => ({ ...competentOnly(s), workers: [] }));
    const db = join(tempDir(), 'f.db');
    const r = await bench(['run', '--workloads-dir', dir, '--workload', NAME, '--db-path', db], { env: ENV });
    expect(r.code, r.stderr).not.toBe(2); // the run completes; the hidden check fails
    expect(read(db).workloads[0]!.reps[0]!.check?.passed).toBe(false);
    const ev = events(db);
    const failed = ev.filter((e) => e.type === 'delegate.failed');
    expect(failed).toHaveLength(2);
    expect(failed.every((f) => f.payload.failure_mode === 'worker_error' && typeof f.payload.worker_session_id === 'string')).toBe(true);
    expect(ev.filter((e) => e.type === 'tool.failed').length).toBeGreaterThanOrEqual(2);
    // Turn 2 of the planner still ran.
    const rep = read(db).workloads[0]!.reps[0]!;
    expect(rep.turns).toBeGreaterThanOrEqual(2);
    expect(ev.filter((e) => e.type === 'turn.completed' && e.session_id === rep.session_ids[0]).length).toBe(2);
  });

  it('the A3 protocol runs Pass D on the delegation workload only', async () => {
    const db = join(tempDir(), 'a3d.db');
    const r = await bench(['run', '--protocol', 'a3', '--workload', NAME, '--workload', 'write-a-doc-from-notes', '--db-path', db], { env: ENV });
    expect(r.code, r.stderr).not.toBe(2);
    const report = read(db);
    const m = report.protocol_metrics!;
    expect(m.pass_d).toEqual({ run: true, reason: null });
    expect(m.passes.map((p) => p.pass)).toEqual(['A', 'B', 'C', 'D', 'R']);
    expect(report.workloads.filter((w) => w.pass === 'D').map((w) => w.workload)).toEqual([NAME]);
  });
});
