import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { startViewServer } from '../../harness/view/view-server.ts';
import type { BenchReport } from '../../schemas/types/report.ts';
import { copyRuns } from '../../harness/runs/test-support/run-copies.ts';
import { BadTraceValueError } from '../../harness/runs/check-run-values.ts';
import { assertRunValues, readEventsSeal } from '../../harness/runs/run-events-seal.ts';
import { runEventsDigest } from '../../harness/runs/events-digest.ts';
import { bench, tempDir } from '../support/cli.ts';

// Issue 22 item 6: values SQLite accepts but no run writes are refused by every reader, naming DB, table, row, field.
const env = { PATH: process.env.PATH };
let good: string;

beforeAll(async () => {
  good = join(tempDir(), 'good.db');
  const r = await bench(['run', '--workload', 'fix-a-bug-small', '--quiet', '--db-path', good], { env });
  expect([0, 1], r.stderr).toContain(r.code);
}, 180_000);

/** A copy of the good DB with `sql` applied; returns its path and the id of the row `pick` selects. */
function tampered(name: string, pick: string, sql: (id: string) => string): { path: string; id: string } {
  const path = join(tempDir(), `${name}.db`);
  copyFileSync(good, path);
  const db = new Database(path);
  const { id } = db.prepare(pick).get() as { id: string };
  db.exec(sql(id));
  db.close();
  return { path, id };
}

const firstCall = "SELECT id FROM events WHERE type = 'llm.call_completed' ORDER BY id LIMIT 1";
const firstRep = 'SELECT id FROM workload_runs ORDER BY id LIMIT 1';

const CASES: { name: string; pick: string; sql: (id: string) => string; where: string; problem: RegExp }[] = [
  {
    name: 'negative-tokens',
    pick: firstCall,
    sql: (id) => `UPDATE events SET payload_json = json_set(payload_json, '$.input_tokens', -5000) WHERE id = '${id}'`,
    where: 'table events, row ID, field payload_json',
    problem: /input_tokens: must be >= 0/,
  },
  {
    name: 'fractional-tokens',
    pick: firstCall,
    sql: (id) => `UPDATE events SET payload_json = json_set(payload_json, '$.output_tokens', 12.5) WHERE id = '${id}'`,
    where: 'table events, row ID, field payload_json',
    problem: /output_tokens: must be integer/,
  },
  {
    name: 'negative-cost',
    pick: firstCall,
    sql: (id) => `UPDATE events SET payload_json = json_set(payload_json, '$.cost_usd', '-0.25') WHERE id = '${id}'`,
    where: 'table events, row ID, field payload_json/cost_usd',
    problem: /negative cost -0\.25/,
  },
  {
    name: 'infinite-score',
    pick: firstRep,
    sql: (id) => `UPDATE workload_runs SET score = 1e309 WHERE id = '${id}'`,
    where: 'table workload_runs, row ID, field score',
    problem: /Infinity is outside \[0, 1\]/,
  },
  {
    name: 'score-above-one',
    pick: firstRep,
    sql: (id) => `UPDATE workload_runs SET score = 1.5 WHERE id = '${id}'`,
    where: 'table workload_runs, row ID, field score',
    problem: /1\.5 is outside \[0, 1\]/,
  },
  // Before: accepted, and the quality mean moved (0.685 -> 0.702 in the probe) as if the rep had not been judged.
  {
    name: 'null-score',
    pick: firstRep,
    sql: (id) => `UPDATE workload_runs SET score = NULL WHERE id = '${id}'`,
    where: 'table workload_runs, row ID, field score',
    problem: /null is not a number in \[0, 1\]/,
  },
  {
    name: 'null-confidence',
    pick: firstRep,
    sql: (id) => `UPDATE workload_runs SET confidence = NULL WHERE id = '${id}'`,
    where: 'table workload_runs, row ID, field confidence',
    problem: /null is not a number in \[0, 1\]/,
  },
  {
    name: 'truncated-json',
    pick: firstCall,
    // The usage index reads the JSON, so SQLite refuses the truncation until it is dropped, as a tamperer would.
    sql: (id) => `DROP INDEX IF EXISTS idx_events_llm_usage; UPDATE events SET payload_json = substr(payload_json, 1, 20) WHERE id = '${id}'`,
    where: 'table events, row ID, field payload_json',
    problem: /malformed JSON/,
  },
  {
    name: 'truncated-check',
    pick: firstRep,
    sql: (id) => `UPDATE workload_runs SET assertions_json = '[{"name":' WHERE id = '${id}'`,
    where: 'table workload_runs, row ID, field assertions_json',
    problem: /malformed JSON/,
  },
];

describe('a valid DB with values no run writes', () => {
  for (const c of CASES) {
    it(`${c.name}: analyze exits 2 naming the DB, table, row and field, writes no JSON, prints no stack`, async () => {
      const { path, id } = tampered(c.name, c.pick, c.sql);
      const json = join(tempDir(), 'out.json');
      const r = await bench(['analyze', '--skip-execute', '--db-path', path, '--json', json], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${path}: ${c.where.replace('ID', id)}`);
      expect(r.stderr).toMatch(c.problem);
      expect(r.stderr).not.toMatch(/\n\s+at |SyntaxError:|Infinity%|quality_mean/);
      expect(existsSync(json)).toBe(false);
    });
  }

  it('bench view shows the tampered DB as unreadable and serves the good one', async () => {
    const { path } = tampered('view', firstCall, (id) => `UPDATE events SET payload_json = json_set(payload_json, '$.input_tokens', -1) WHERE id = '${id}'`);
    const server = await startViewServer({ dbPaths: [path, good], host: '127.0.0.1', port: 0 });
    try {
      const body = (await (await fetch(new URL('/api/runs', server.url))).json()) as { runs: { db: number }[]; errors: { db: number; error: string }[] };
      expect(body.runs.every((r) => r.db === 1)).toBe(true);
      expect(body.errors[0]).toMatchObject({ db: 0, error: expect.stringContaining('table events') });
    } finally {
      await server.close();
    }
  });

  it('bench merge refuses a tampered input with exit 2 naming it', async () => {
    const { path, id } = tampered('merge', firstRep, (rid) => `UPDATE workload_runs SET score = -0.5 WHERE id = '${rid}'`);
    const r = await bench(['merge', path, good, '--out', join(tempDir(), 'merged.db')], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${path}: table workload_runs, row ${id}, field score`);
  });

  it('analyze --json of a good DB writes a report that bench report accepts', async () => {
    const json = join(tempDir(), 'good.json');
    const a = await bench(['analyze', '--skip-execute', '--db-path', good, '--json', json], { env });
    expect([0, 1], a.stderr).toContain(a.code);
    const r = await bench(['report', json, '--format', 'md'], { env });
    expect(r.code, r.stderr).toBe(0);
  });

  it('bench report refuses a report JSON with a score above 1, negative spend or a non-finite number, naming the field', async () => {
    const json = join(tempDir(), 'base.json');
    await bench(['analyze', '--skip-execute', '--db-path', good, '--json', json], { env });
    const text = readFileSync(json, 'utf8');
    const edits: [string, (r: BenchReport) => void, RegExp][] = [
      ['score', (r) => (r.workloads[0]!.reps[0]!.score = 1.5), /reps\/0\/score: must be <= 1/],
      ['spend', (r) => (r.aggregate.savings.actual_repriced_usd = '-0.5'), /actual_repriced_usd: must match pattern/],
    ];
    for (const [name, edit, problem] of edits) {
      const report = JSON.parse(text) as BenchReport;
      edit(report);
      const path = join(tempDir(), `${name}.json`);
      writeFileSync(path, JSON.stringify(report));
      const r = await bench(['report', path, '--format', 'md'], { env });
      expect(r.code, name).toBe(2);
      expect(r.stderr).toContain(`${path}: not a valid bench report`);
      expect(r.stderr).toMatch(problem);
    }
    // 1e309 is valid JSON text that parses to Infinity.
    const inf = join(tempDir(), 'inf.json');
    writeFileSync(inf, text.replace(/"quality_mean": [^,\n]+/, '"quality_mean": 1e309'));
    const r = await bench(['report', inf, '--format', 'md'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/quality_mean: must be number/);
  });

  it('analyze checks the run it reports: a bad value in another run of the DB is not read, one in this run is refused', async () => {
    // Two copies of the good run; the second (~1) is the latest, the one analyze reports by default.
    const two = join(tempDir(), 'two.db');
    copyRuns(good, two, 2);
    const db = new Database(two);
    const runOf = (k: number) => (db.prepare('SELECT run_id FROM bench_runs WHERE run_id LIKE ?').get(`%~${k}`) as { run_id: string }).run_id;
    const [older, latest] = [runOf(0), runOf(1)];
    const { id } = db.prepare(`${firstCall.replace(' ORDER BY', ` AND id LIKE '%~0' ORDER BY`)}`).get() as { id: string };
    db.exec(`UPDATE events SET payload_json = json_set(payload_json, '$.input_tokens', -5000) WHERE id = '${id}'`);
    db.close();
    for (const pick of [[], ['--run', latest]]) {
      const ok = await bench(['analyze', '--skip-execute', '--db-path', two, ...pick], { env });
      expect([0, 1], ok.stderr).toContain(ok.code);
    }
    const bad = await bench(['analyze', '--skip-execute', '--db-path', two, '--run', older], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${two}: table events, row ${id}, field payload_json`);
    // The whole-DB readers still refuse it.
    const merged = await bench(['merge', two, '--out', join(tempDir(), 'merged.db')], { env });
    expect(merged.code).toBe(2);
  });

  describe("the run's seal vouches for its events", () => {
    const runOf = (db: Database.Database) => (db.prepare('SELECT run_id FROM bench_runs').get() as { run_id: string }).run_id;
    /** assertRunValues on a read-only open of `path`: how the run's event values were found good, or the error. */
    const verdict = (path: string) => {
      const db = new Database(path, { readonly: true });
      try {
        return assertRunValues(db, path, runOf(db)).verdict;
      } finally {
        db.close();
      }
    };

    it('a finished run is sealed with the digest of its checked events, and analyze trusts it: no payload is schema-checked again', () => {
      const db = new Database(good, { readonly: true });
      const seal = readEventsSeal(db, runOf(db));
      expect(seal?.digest).toBe(runEventsDigest(db, runOf(db)));
      expect(seal?.digest).toMatch(/^v2:[0-9a-f]{64}$/);
      expect(seal?.checked_with).toMatch(/^event-checks\/\d+ catalog\/\d+ sha256:[0-9a-f]{64}$/);
      db.close();
      expect(verdict(good)).toBe('sealed');
    });

    it('a payload changed after the seal is checked again: a bad value is refused naming the event, a good one passes', () => {
      const bad = tampered('sealed-bad', firstCall, (id) => `UPDATE events SET payload_json = json_set(payload_json, '$.input_tokens', -5000) WHERE id = '${id}'`);
      expect(() => verdict(bad.path)).toThrow(BadTraceValueError);
      expect(() => verdict(bad.path)).toThrow(`${bad.path}: table events, row ${bad.id}, field payload_json`);
      // Still a valid payload, but not the bytes sealed: every payload is checked, none trusted.
      const edited = tampered('sealed-edited', firstCall, (id) => `UPDATE events SET payload_json = json_set(payload_json, '$.input_tokens', json_extract(payload_json, '$.input_tokens') + 1) WHERE id = '${id}'`);
      expect(verdict(edited.path)).toBe('checked');
      // A row added to the run, or removed from it, changes the digest too.
      const removed = tampered('sealed-removed', firstCall, (id) => `DELETE FROM events WHERE id = '${id}'`);
      expect(verdict(removed.path)).toBe('checked');
      // Even one whose id is NULL (a TEXT key SQLite lets be NULL), which a plain concatenation would leave out of the digest.
      const added = tampered(
        'sealed-null-id',
        firstCall,
        (id) => `INSERT INTO events (id, timestamp_us, session_id, turn_id, parent_event_id, type, actor, sensitivity, payload_json)
          SELECT NULL, timestamp_us, session_id, turn_id, parent_event_id, type, actor, sensitivity, json_set(payload_json, '$.input_tokens', -5000) FROM events WHERE id = '${id}'`,
      );
      expect(() => verdict(added.path)).toThrow(/table events, row null, field payload_json: a llm\.call_completed payload that breaks its schema/);
      // A summed payload that is no longer JSON stops the pass that reads its fields: refused naming the event too.
      // (The usage index reads the payload on every write, so the edit drops it first.)
      const torn = tampered('sealed-not-json', firstCall, (id) => `DROP INDEX idx_events_llm_usage; UPDATE events SET payload_json = substr(payload_json, 1, 40) WHERE id = '${id}'`);
      expect(() => verdict(torn.path)).toThrow(BadTraceValueError);
      expect(() => verdict(torn.path)).toThrow(`${torn.path}: table events, row ${torn.id}, field payload_json`);
    });

    it("a seal an older bench wrote (a version 1 digest) still vouches for its rows; a row changed under either version's seal is checked", () => {
      const db = new Database(good, { readonly: true });
      const v1 = runEventsDigest(db, runOf(db), 1);
      db.close();
      const sealV1 = `UPDATE bench_run_seal SET events_digest = '${v1}';`;
      expect(verdict(tampered('sealed-v1', firstRep, () => sealV1).path)).toBe('sealed');
      const bump = (id: string) => `UPDATE events SET payload_json = json_set(payload_json, '$.input_tokens', json_extract(payload_json, '$.input_tokens') + 1) WHERE id = '${id}'`;
      expect(verdict(tampered('sealed-v1-edited', firstCall, (id) => `${sealV1} ${bump(id)}`).path)).toBe('checked');
      expect(verdict(tampered('sealed-v2-edited', firstCall, bump).path)).toBe('checked');
      const bad = tampered('sealed-v1-bad', firstCall, (id) => `${sealV1} UPDATE events SET payload_json = json_set(payload_json, '$.input_tokens', -5000) WHERE id = '${id}'`);
      expect(() => verdict(bad.path)).toThrow(`${bad.path}: table events, row ${bad.id}, field payload_json`);
      // A digest in a format this bench does not know (a later bench's) vouches for nothing here.
      expect(verdict(tampered('sealed-v3', firstRep, () => "UPDATE bench_run_seal SET events_digest = 'v3:' || substr(events_digest, 4)").path)).toBe('checked');
    });

    it('a seal made under other checks or another catalog, or none (an older bench), means every payload is checked', () => {
      const other = tampered('sealed-other-catalog', firstRep, () => "UPDATE bench_run_seal SET events_checked_with = replace(events_checked_with, 'sha256:', 'sha256:0')");
      expect(verdict(other.path)).toBe('checked');
      const none = tampered('sealed-none', firstRep, () => 'UPDATE bench_run_seal SET events_digest = NULL');
      expect(verdict(none.path)).toBe('checked');
      const older = tampered('sealed-older', firstRep, () => 'ALTER TABLE bench_run_seal DROP COLUMN events_digest');
      expect(verdict(older.path)).toBe('checked');
    });
  });
});
