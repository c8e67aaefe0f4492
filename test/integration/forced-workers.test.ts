// Issue 11 item 3: the forced arms force every session, workers included; worker sessions record their parent.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import { bench, tempDir } from '../support/cli.ts';

const NAME = 'multi-step-with-delegation';
const HAIKU = 'anthropic:claude-haiku-4-5';
const SONNET = 'anthropic:claude-sonnet-4-6';
const ENV = { PATH: process.env.PATH };
type Chain = { policy: string; verdict: string; candidate_model: string | null }[];

describe('A3 forced arms and worker sessions', () => {
  it('Pass A workers run on the cheap model, Pass B workers on the strong one, Pass C/D workers on their tier; every worker names its planner', { timeout: 180_000 }, async () => {
    const db = join(tempDir(), 'fw.db');
    const r = await bench(['run', '--protocol', 'a3', '--workload', NAME, '--db-path', db, '--quiet'], { env: ENV });
    expect(r.code, r.stderr).not.toBe(2);
    const report = JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;
    const conn = new Database(db, { readonly: true });
    try {
      const parentOf = new Map((conn.prepare('SELECT id, parent_session_id FROM sessions').all() as { id: string; parent_session_id: string | null }[]).map((s) => [s.id, s.parent_session_id]));
      const routeOf = (session: string) => {
        const row = conn.prepare("SELECT payload_json FROM events WHERE session_id = ? AND type = 'route.decided' ORDER BY id LIMIT 1").get(session) as { payload_json: string };
        return JSON.parse(row.payload_json) as { chosen_model: string; chain: Chain };
      };
      const expected: Record<string, { model: string; policy: string }> = {
        A: { model: HAIKU, policy: 'manual_sticky' },
        B: { model: SONNET, policy: 'manual_sticky' },
        C: { model: HAIKU, policy: 'delegate_request' }, // the sim planner asks for the fast tier
        D: { model: HAIKU, policy: 'delegate_request' },
      };
      for (const w of report.workloads) {
        for (const rep of w.reps) {
          const [planner, ...workers] = rep.session_ids;
          expect(workers.length, `${w.pass} rep ${rep.rep}`).toBeGreaterThan(0);
          expect(parentOf.get(planner!)).toBeNull();
          for (const worker of workers) {
            expect(parentOf.get(worker)).toBe(planner);
            const route = routeOf(worker);
            const winner = route.chain.find((c) => c.verdict === 'chose')!;
            if (w.pass === 'R') {
              // Pass R's coin names every turn's model, a worker's too (C's share covers planner and worker turns).
              expect(winner.policy, 'R worker').toBe('per_message_override');
              expect([HAIKU, SONNET]).toContain(route.chosen_model);
            } else expect({ model: route.chosen_model, policy: winner.policy }, `${w.pass} worker`).toEqual(expected[w.pass]);
            // Slot 4 never decides a worker's turn (Pass R's chain has no slot 4 at all).
            expect(route.chain.find((c) => c.policy === 'pattern')?.verdict).not.toBe('chose');
            const started = conn.prepare("SELECT payload_json FROM events WHERE type = 'delegate.started' AND json_extract(payload_json, '$.worker_session_id') = ?").get(worker) as { payload_json: string };
            expect(JSON.parse(started.payload_json).resolved_model).toBe(route.chosen_model);
          }
        }
      }
    } finally {
      conn.close();
    }
  });
});
