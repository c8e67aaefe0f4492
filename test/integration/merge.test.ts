import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import type * as Provenance from '../../harness/provenance.ts';
import { bench, tempDir } from '../support/cli.ts';
import { sealRun } from '../../harness/runs/run-seal.ts';

// Shards of one run must carry one commit; other work landing in this checkout mid-test must not split them.
vi.mock('../../harness/provenance.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof Provenance>();
  return { ...actual, readGitFacts: () => ({ sha: '0123456789abcdef0123456789abcdef01234567', branch: 'main', dirty: false }) };
});

const ENV = { PATH: process.env.PATH };
const WORKLOADS = ['--workload', 'fix-a-bug-small', '--workload', 'regex-with-edge-cases'];
const read = (json: string) => JSON.parse(readFileSync(json, 'utf8')) as BenchReport;

/** What may differ between the one-machine run and the merged one: ids, timestamps, paths, check timings, shard labels, the merge's seal mode. */
function comparable(report: BenchReport): unknown {
  const r = structuredClone(report);
  const drop = new Set(['run_id', 'started_at', 'ended_at', 'db_path', 'patterns_db_path', 'session_ids', 'started_at_us', 'ended_at_us', 'output_tail', 'turn_id', 'duration_ms', 'merged_from', 'merge_seal']);
  const strip = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(strip) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).filter(([k]) => !drop.has(k)).map(([k, x]) => [k, strip(x)])) : v;
  return strip(r);
}

async function ok(args: string[], env: Record<string, string | undefined> = ENV) {
  const r = await bench(args, { env });
  expect(r.code, `${args.join(' ')}\n${r.stderr}`).not.toBe(2);
  return r;
}

/** The report analyze rebuilds from a merged DB. */
async function analyzed(db: string): Promise<BenchReport> {
  const json = db.replace(/\.db$/, '.analyzed.json');
  await ok(['analyze', '--skip-execute', '--db-path', db, '--json', json]);
  return read(json);
}

/** `single`: N shards of the one pass, merged. */
async function shardedSingle(dir: string, n: number, flags: string[]): Promise<BenchReport> {
  const dbs = [];
  for (let i = 1; i <= n; i++) {
    const db = join(dir, `s${i}.db`);
    await ok(['run', ...flags, '--shard', `${i}/${n}`, '--db-path', db]);
    dbs.push(db);
  }
  await ok(['merge', ...dbs, '--out', join(dir, 'merged.db')]);
  return analyzed(join(dir, 'merged.db'));
}

/** `a3`: N shards of Passes A,B, merged; Passes C,D on the merged store; everything merged. */
async function shardedA3(dir: string, n: number, flags: string[]): Promise<BenchReport> {
  const dbs = [];
  for (let i = 1; i <= n; i++) {
    const db = join(dir, `s${i}.db`);
    await ok(['run', ...flags, '--passes', 'A,B', '--shard', `${i}/${n}`, '--db-path', db]);
    dbs.push(db);
  }
  await ok(['merge', ...dbs, '--out', join(dir, 'ab.db')]);
  await ok(['run', ...flags, '--passes', 'C,D', '--patterns-db-path', join(dir, 'ab.patterns.db'), '--db-path', join(dir, 'cd.db')]);
  await ok(['merge', ...dbs, join(dir, 'cd.db'), '--out', join(dir, 'run.db')]);
  return analyzed(join(dir, 'run.db'));
}

describe('bench merge equals the run made on one machine', () => {
  for (const protocol of ['single', 'a3'] as const) {
    const flags = ['--protocol', protocol, ...WORKLOADS, '--seed-passes', protocol === 'single' ? '3' : '2'];
    it(`${protocol}: 2 and 3 shards, number for number`, { timeout: 900_000 }, async () => {
      const one = join(tempDir(), 'one.db');
      await ok(['run', ...flags, '--db-path', one]);
      const reference = comparable(await analyzed(one));
      for (const n of [2, 3]) {
        const dir = tempDir();
        const merged = protocol === 'single' ? await shardedSingle(dir, n, flags) : await shardedA3(dir, n, flags);
        expect(merged.status).toBe('complete');
        expect(merged.provenance.merged_from).toHaveLength(protocol === 'single' ? n : n + 1);
        // Pass R ran where C and D ran (a whole Pass C) and merged with the shards' plans.
        if (protocol === 'a3') expect(merged.protocol_metrics?.pass_r?.run).toBe(true);
        expect(comparable(merged), `${protocol} with ${n} shards`).toEqual(reference);
      }
    });
  }
});

describe('bench merge refuses what is not the complete shards of one run (exit 2, naming it)', () => {
  const flags = ['--protocol', 'single', '--workload', 'fix-a-bug-small', '--seed-passes', '2'];
  let dir = '';
  const shard = async (name: string, extra: string[]) => {
    const db = join(dir, `${name}.db`);
    await ok(['run', ...flags, ...extra, '--db-path', db]);
    return db;
  };
  const refused = async (dbs: string[], message: RegExp | string) => {
    const r = await bench(['merge', ...dbs, '--out', join(dir, `out-${Math.random().toString(36).slice(2)}.db`)], { env: ENV });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  };

  it('each refusal', { timeout: 900_000 }, async () => {
    dir = tempDir();
    const s1 = await shard('s1', ['--shard', '1/2']);
    const s2 = await shard('s2', ['--shard', '2/2']);
    // Another run (another seed): its derived run id differs, and so would the seed.
    const other = await shard('other', ['--shard', '2/2', '--seed', '7']);
    await refused([s1, other], /not shards of one run: run_id differs: .*s1\.db has .*other\.db has/);
    // Same run id forced, different seed: the seed is named.
    const forcedA = await shard('fa', ['--shard', '1/2', '--run-id', 'run_same']);
    const forcedB = await shard('fb', ['--shard', '2/2', '--run-id', 'run_same', '--seed', '7']);
    await refused([forcedA, forcedB], /seed differs: .*fa\.db has 0, .*fb\.db has 7/);
    // One shard behind the semantic cache, the other not.
    const cached = await shard('fc', ['--shard', '2/2', '--run-id', 'run_same', '--cache', 'on']);
    await refused([forcedA, cached], /semantic_cache \(--cache on\) differs: .*fa\.db has false, .*fc\.db has true/);
    // A different suite (another workload selection).
    const suite = await bench(['run', '--protocol', 'single', '--workload', 'regex-with-edge-cases', '--seed-passes', '2', '--shard', '2/2', '--run-id', 'run_same', '--db-path', join(dir, 'suite.db')], { env: ENV });
    expect(suite.code).not.toBe(2);
    await refused([forcedA, join(dir, 'suite.db')], /suite \(selected workloads and reps\) differs/);
    // A different price table or commit: edit one shard's recorded provenance.
    const priced = join(dir, 'priced.db');
    copyFileSync(s2, priced);
    const db = new Database(priced);
    const row = db.prepare('SELECT run_id, provenance_json FROM bench_runs').get() as { run_id: string; provenance_json: string };
    db.prepare('UPDATE bench_runs SET provenance_json = ? WHERE run_id = ?').run(JSON.stringify({ ...JSON.parse(row.provenance_json), pricing_version: '2001-01-01' }), row.run_id);
    db.close();
    await refused([s1, priced], /pricing_version differs: .*"2001-01-01"/);
    const commit = join(dir, 'commit.db');
    copyFileSync(s2, commit);
    const dc = new Database(commit);
    dc.prepare('UPDATE bench_runs SET provenance_json = ? WHERE run_id = ?').run(JSON.stringify({ ...JSON.parse(row.provenance_json), metis_commit_sha: 'feedface' }), row.run_id);
    dc.close();
    await refused([s1, commit], /metis_commit_sha differs/);
    // Missing and overlapping shards.
    await refused([s1], /missing shards: pass single lacks shard 2\/2/);
    const s1again = join(dir, 's1-again.db');
    copyFileSync(s1, s1again);
    await refused([s1, s1again, s2], /overlapping shards: shard 1\/2 of pass single is in .*s1\.db and .*s1-again\.db/);
    const third = await shard('third', ['--shard', '1/3']);
    await refused([s1, s2, third], /overlapping shards: pass single is split 2 ways and 3 ways/);
    // A shard that never finished.
    const killed = join(dir, 'killed.db');
    copyFileSync(s2, killed);
    const dk = new Database(killed);
    dk.prepare("UPDATE bench_runs SET status = 'running'").run();
    dk.close();
    await refused([s1, killed], /killed\.db: run .* is interrupted \(never finished\); finish it with bench run --resume/);
    // An existing --out.
    const r = await bench(['merge', s1, s2, '--out', s1], { env: ENV });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('already exists');
    // And the good pair merges.
    const good = await bench(['merge', s1, s2, '--out', join(dir, 'good.db')], { env: ENV });
    expect(good.code, good.stderr).toBe(0);
    // The inputs were only read: no -wal or -shm is left beside them.
    for (const input of [s1, s2]) expect([`${input}-wal`, `${input}-shm`].filter((f) => existsSync(f)), input).toEqual([]);
  });
});

describe('bench merge refuses a tampered shard (exit 2, naming the DB and what is wrong)', () => {
  const flags = ['--protocol', 'single', '--workload', 'fix-a-bug-small', '--workload', 'regex-with-edge-cases', '--seed-passes', '3'];
  /** A copy of `src` edited by `sql`; `reseal` recomputes the seal as a forger would (null: without a key; a Buffer: under that key). */
  const tampered = (src: string, name: string, sql: string, reseal: Buffer | null | false = false) => {
    const path = join(dirname(src), `${name}.db`);
    copyFileSync(src, path);
    const db = new Database(path);
    db.exec(sql);
    // A forger who knows the seal recomputes it, over the store the shard recorded: the plan check still stands.
    if (reseal !== false) {
      const run = db.prepare('SELECT run_id, provenance_json FROM bench_runs').get() as { run_id: string; provenance_json: string };
      sealRun(db, run.run_id, 1, { key: reseal, patternsPath: (JSON.parse(run.provenance_json) as { patterns_db_path: string | null }).patterns_db_path });
    }
    db.close();
    return path;
  };
  const merged = async (dbs: string[], env: Record<string, string | undefined> = ENV) => bench(['merge', ...dbs, '--out', join(dirname(dbs[0]!), `out-${Math.random().toString(36).slice(2)}.db`)], { env });
  /** Takes the first rep out of the DB and out of what the DB says it holds (its in_this_db flag). */
  const dropRep = `UPDATE bench_run_jobs SET in_this_db = 0 WHERE EXISTS (SELECT 1 FROM workload_runs w WHERE w.rowid = (SELECT min(rowid) FROM workload_runs) AND w.pass = bench_run_jobs.pass AND w.workload = bench_run_jobs.workload AND w.rep = bench_run_jobs.rep); DELETE FROM workload_runs WHERE rowid = (SELECT min(rowid) FROM workload_runs)`;

  it('a deleted, duplicated, flipped, inflated or foreign rep is refused; a rep in two shards is refused in either order', { timeout: 900_000 }, async () => {
    const dir = tempDir();
    const s1 = join(dir, 's1.db');
    const s2 = join(dir, 's2.db');
    await ok(['run', ...flags, '--shard', '1/2', '--db-path', s1]);
    await ok(['run', ...flags, '--shard', '2/2', '--db-path', s2]);
    const first = "(SELECT min(rowid) FROM workload_runs)";
    const copyRow = (id: string, from: string) => `INSERT INTO workload_runs SELECT ${id}, run_id, workload, pass, rep, model, signal_strength, session_ids_json, started_at_us, ended_at_us, turns, score, confidence, check_json, assertions_json, error, outcome, error_class FROM ${from} WHERE rowid = (SELECT min(rowid) FROM ${from})`;
    // Before: each of these merged with exit 0 (solved 4/6 became 4/5, 7 reps for 6, all solved, 33x the tokens).
    const cases: [string, string, RegExp][] = [
      ['deleted', `DELETE FROM workload_runs WHERE rowid = ${first}`, /deleted\.db: the DB's content does not match the seal written when run \S+ finished/],
      ['duplicated', `DROP INDEX idx_workload_runs_rep_key; ${copyRow("id || 'x'", 'workload_runs')}`, /duplicated\.db: the DB's content does not match the seal/],
      ['flipped', "UPDATE workload_runs SET outcome = 'solved', score = 1.0", /flipped\.db: the DB's content does not match the seal/],
      ['inflated', "UPDATE events SET payload_json = json_set(payload_json, '$.output_tokens', json_extract(payload_json, '$.output_tokens') * 100) WHERE type = 'llm.call_completed'", /inflated\.db: the DB's content does not match the seal/],
      ['unsealed', 'DELETE FROM bench_run_seal', /unsealed\.db: run \S+ has no seal/],
    ];
    for (const [name, sql, message] of cases) {
      const r = await merged([s1, tampered(s2, name, sql)]);
      expect(r.code, `${name}: ${r.stdout}`).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    // Resealed after the edit: the rows must still be exactly the shard's planned jobs.
    const resealed: [string, string, RegExp][] = [
      ['deleted-resealed', `DELETE FROM workload_runs WHERE rowid = ${first}`, /deleted-resealed\.db: table workload_runs is not this shard's plan \(1 problem\(s\)\): no row for planned pass single \S+ rep \d \(missing\)/],
      ['duplicated-resealed', `DROP INDEX idx_workload_runs_rep_key; ${copyRow("id || 'x'", 'workload_runs')}`, /duplicated-resealed\.db: table workload_runs is not this shard's plan \(1 problem\(s\)\): more than one row for pass single/],
      ['foreign-resealed', `ATTACH '${s1}' AS o; ${copyRow("id || 'f'", 'o.workload_runs')}`, /foreign-resealed\.db: table workload_runs is not this shard's plan \(1 problem\(s\)\): pass single \S+ rep \d is another shard's job \(a foreign slice\)/],
      ['extra-resealed', copyRow("id || 'e'", 'workload_runs').replace(', rep, model', ', rep + 10, model'), /extra-resealed\.db: table workload_runs is not this shard's plan \(1 problem\(s\)\): pass single \S+ rep 1\d is in no plan of this run \(an extra row\)/],

      // Before: merged with exit 0 (solved 3/3 for 3/4): merge trusted the shard's own in_this_db flag.
      ['dropped-resealed', dropRep, /dropped-resealed\.db: table workload_runs is not this shard's plan \(1 problem\(s\)\): no row for planned pass single \S+ rep \d \(missing\)/],
    ];
    for (const [name, sql, message] of resealed) {
      const r = await merged([s1, tampered(s2, name, sql, null)]);
      expect(r.code, `${name}: ${r.stdout}`).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    // The same rep (same id, another verdict) in both shards, resealed: refused whichever DB comes first.
    const planted = tampered(s2, 'planted', `ATTACH '${s1}' AS o; ${copyRow('id', 'o.workload_runs')}; UPDATE workload_runs SET outcome = 'solved' WHERE rowid = (SELECT max(rowid) FROM workload_runs)`, null);
    for (const order of [[s1, planted], [planted, s1]]) {
      const r = await merged(order);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/planted\.db: table workload_runs is not this shard's plan .*another shard's job \(a foreign slice\)/);
    }
    // A pattern store edited beside its shard (a score of 1, a negative spend): refused by its seal, and when resealed, by its values.
    const storeOf = (db: string) => db.replace(/\.db$/, '.patterns.db');
    for (const [name, reseal, message] of [
      ['store-edited', false, /store-edited\.patterns\.db: the pattern store's content does not match the one sealed with run \S+ in .*store-edited\.db/],
      ['store-resealed', null, /store-resealed\.patterns\.db: table outcomes, row \S+, field sum_cost_usd_micros: -5000000 is a negative spend/],
    ] as const) {
      const db = join(dir, `${name}.db`);
      copyFileSync(s2, db);
      copyFileSync(storeOf(s2), storeOf(db));
      const st = new Database(storeOf(db));
      st.exec('UPDATE outcomes SET success_score_mean = 1, sum_cost_usd_micros = -5000000 WHERE rowid = (SELECT min(rowid) FROM outcomes)');
      st.close();
      if (reseal === null) {
        const d = new Database(db);
        sealRun(d, (d.prepare('SELECT run_id FROM bench_runs').get() as { run_id: string }).run_id, 1, { key: null, patternsPath: storeOf(db) });
        d.close();
      }
      const r = await merged([s1, db]);
      expect(r.code, `${name}: ${r.stdout}`).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    // And the untouched pair still merges, and its output is sealed in turn; both reports say the seal has no key.
    const good = await merged([s1, s2]);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toContain('seals:         tamper-evident only (no METIS_SEAL_KEY)');
    const out = /trace DB: +(\S+)/.exec(good.stdout)![1]!;
    expect((await analyzed(out)).provenance.merge_seal).toBe('tamper-evident only (no METIS_SEAL_KEY)');
  });

  it('with METIS_SEAL_KEY, a shard edited and resealed without the key is refused; the keyed pair merges and says so', { timeout: 900_000 }, async () => {
    const dir = tempDir();
    const KEYED = { ...ENV, METIS_SEAL_KEY: 'a secret the CI holds, not the shard machines' };
    const k1 = join(dir, 'k1.db');
    const k2 = join(dir, 'k2.db');
    await ok(['run', ...flags, '--shard', '1/2', '--db-path', k1], KEYED);
    await ok(['run', ...flags, '--shard', '2/2', '--db-path', k2], KEYED);
    // Before: each merged with exit 0 (a plain SHA-256 anyone recomputes).
    const cases: [string, string, Buffer | null, RegExp][] = [
      ['k-dropped', dropRep, null, /k-dropped\.db: run \S+ is sealed without a key, but METIS_SEAL_KEY is set here/],
      ['k-flipped', "UPDATE workload_runs SET outcome = 'solved', score = 1.0", null, /k-flipped\.db: run \S+ is sealed without a key, but METIS_SEAL_KEY is set here/],
      ['k-guessed', "UPDATE workload_runs SET outcome = 'solved', score = 1.0", Buffer.from('a guessed key'), /k-guessed\.db: the DB's content does not match the seal .*or the shard was sealed under another METIS_SEAL_KEY/],
    ];
    for (const [name, sql, key, message] of cases) {
      const r = await merged([k1, tampered(k2, name, sql, key)], KEYED);
      expect(r.code, `${name}: ${r.stdout}`).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    // Keyed shards cannot be checked without the key.
    const nokey = await merged([k1, k2]);
    expect(nokey.code).toBe(2);
    expect(nokey.stderr).toMatch(/k1\.db: run \S+ is sealed with METIS_SEAL_KEY \(HMAC-SHA256\); set the same METIS_SEAL_KEY to merge it/);
    const good = await merged([k1, k2], KEYED);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toContain('seals:         keyed (HMAC-SHA256 under METIS_SEAL_KEY)');
  });
});
