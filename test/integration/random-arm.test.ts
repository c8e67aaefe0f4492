// Issue 23 item 2: the random router run as an arm (Pass R) beside the A/B interpolation.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../runtime/core/seeded-random.ts';
import { validatorFor } from '../../runtime/core/schemas.ts';
import type { RouteDecidedPayload } from '../../runtime/routing/index.ts';
import type { BenchReport } from '../../schemas/types/report.ts';
import { RANDOM_REASON_PREFIX, randomArmSeed } from '../../harness/protocols/random-arm.ts';
import { bench, tempDir } from '../support/cli.ts';

const ENV = { PATH: process.env.PATH };
// A delegation workload too: Pass D must not move, and the coin routes worker turns as well.
const ARGS = ['--protocol', 'a3', '--workload', 'fix-a-bug-small', '--workload', 'multi-step-with-delegation', '--seed-passes', '2', '--seed', '0', '--quiet'];
const CHEAP = 'anthropic:claude-haiku-4-5';
const STRONG = 'anthropic:claude-sonnet-4-6';

const read = (db: string) => JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;

/** What legitimately differs between two runs of the same work: ids, timestamps, paths. */
function comparable(v: unknown): unknown {
  const drop = new Set(['run_id', 'started_at', 'ended_at', 'db_path', 'patterns_db_path', 'session_ids', 'session_id', 'started_at_us', 'ended_at_us', 'output_tail', 'turn_id', 'duration_ms', 'id']);
  return Array.isArray(v) ? v.map(comparable) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).filter(([k]) => !drop.has(k)).map(([k, x]) => [k, comparable(x)])) : v;
}

/** Pass R's route.decided payloads per (workload, rep), planner and workers in emission order. */
function passRDecisions(db: string, report: BenchReport): Map<string, RouteDecidedPayload[]> {
  const conn = new Database(db, { readonly: true });
  try {
    const out = new Map<string, RouteDecidedPayload[]>();
    for (const w of report.workloads.filter((x) => x.pass === 'R'))
      for (const r of w.reps) {
        const rows = conn.prepare(`SELECT payload_json FROM events WHERE type = 'route.decided' AND session_id IN (${r.session_ids.map(() => '?').join(',')}) ORDER BY id`).all(...r.session_ids) as { payload_json: string }[];
        out.set(`${w.workload}/${r.rep}`, rows.map((x) => JSON.parse(x.payload_json) as RouteDecidedPayload));
      }
    return out;
  } finally {
    conn.close();
  }
}

describe('A3 Pass R: the random router run as an arm', () => {
  const dir = tempDir('random-arm-');
  const withR = join(dir, 'with-r.db');
  const withoutR = join(dir, 'without-r.db');
  let on: BenchReport;
  let off: BenchReport;
  let stdout = '';

  beforeAll(async () => {
    const [a, b] = [await bench(['run', ...ARGS, '--db-path', withR], { env: ENV }), await bench(['run', ...ARGS, '--no-random-arm', '--db-path', withoutR], { env: ENV })];
    expect(a.code, a.stderr).not.toBe(2);
    expect(b.code, b.stderr).not.toBe(2);
    stdout = a.stdout;
    on = read(withR);
    off = read(withoutR);
  }, 600_000);

  it('runs after the planned passes on every unit of Pass C, in the report schema, and leaves every other pass as it was', () => {
    expect(validatorFor<BenchReport>('report.schema.json')(on)).toBe(true);
    expect(on.protocol_metrics!.passes.map((p) => p.pass)).toEqual(['A', 'B', 'C', 'D', 'R']);
    const units = (r: BenchReport, pass: string) => r.workloads.filter((w) => w.pass === pass).flatMap((w) => w.reps.map((x) => `${w.workload}/${x.rep}`));
    expect(units(on, 'R')).toEqual(units(on, 'C'));
    // Seed fixed, with and without Pass R: the same A, B, C and D rows, to the token and the cent.
    expect(comparable(on.workloads.filter((w) => w.pass !== 'R'))).toEqual(comparable(off.workloads));
    expect(comparable(on.protocol_metrics!.passes.filter((p) => p.pass !== 'R'))).toEqual(comparable(off.protocol_metrics!.passes));
    expect(on.protocol_metrics!.strong_call_rate).toBe(off.protocol_metrics!.strong_call_rate);
    // Its turns never reached the run's pattern store.
    expect(on.protocol_metrics!.cluster_tightness).toEqual(off.protocol_metrics!.cluster_tightness);
    expect(on.headline!.vs_random!.interpolated).toEqual(off.headline!.vs_random!.interpolated);
  });

  it('--no-random-arm: no Pass R, the provenance and the report say so, and the verdict uses the interpolation', () => {
    expect(off.provenance.random_arm).toBe(false);
    expect(on.provenance.random_arm).toBeUndefined();
    expect(off.protocol_metrics!.pass_r).toMatchObject({ run: false, strong_share_target: null, strong_share_measured: null });
    expect(off.protocol_metrics!.pass_r!.reason).toMatch(/^--no-random-arm/);
    expect(off.headline!.vs_random).toMatchObject({ measured: null, used: 'interpolated' });
    expect(off.headline!.verdict).toContain('no random router was run (Pass R), so the verdict uses the interpolation');
  });

  it("records every Pass R turn as a random decision: slot 1, the coin's probability and draw, replayable from the run seed", () => {
    const target = on.protocol_metrics!.pass_r!.strong_share_target!;
    expect(target).toBe(on.protocol_metrics!.strong_call_rate);
    const decisions = passRDecisions(withR, on);
    let turns = 0;
    let strong = 0;
    for (const [key, list] of decisions) {
      const [workload, rep] = key.split('/') as [string, string];
      const coin = seededRandom(randomArmSeed(0, workload, Number(rep)));
      for (const d of list) {
        const winner = d.chain[d.winner_index]!;
        const u = coin();
        expect(winner.policy).toBe('per_message_override');
        expect(winner.reason).toBe(`${RANDOM_REASON_PREFIX}: strong with probability ${target}; draw ${u.toFixed(6)} → ${u < target ? 'strong' : 'cheap'}`);
        expect(d.chosen_model).toBe(u < target ? STRONG : CHEAP);
        // No slot 4 in Pass R's chain: the coin names every model, the store is not consulted.
        expect(d.chain.find((e) => e.policy === 'pattern')!.verdict).toBe('not_applicable');
        turns += 1;
        if (d.chosen_model === STRONG) strong += 1;
      }
    }
    expect(turns).toBeGreaterThan(10);
    // The coins' share, as the report states it, matches Pass C's within sampling error (3 standard errors).
    expect(on.protocol_metrics!.pass_r).toEqual({ run: true, reason: null, strong_share_target: target, strong_share_measured: strong / turns });
    expect(Math.abs(strong / turns - target)).toBeLessThanOrEqual(3 * Math.sqrt((target * (1 - target)) / turns));
  });

  it('the headline and stdout give both random references with their intervals and use the measured arm', () => {
    const v = on.headline!.vs_random!;
    expect(v).toMatchObject({ used: 'measured', measured_strong_share: on.protocol_metrics!.pass_r!.strong_share_measured });
    expect(v.measured!.ci_low).not.toBeNull();
    expect(on.headline!.verdict).toMatch(/random at its mix \(interpolated A\/B\); .* the random router that ran \(Pass R, \d+% of its turns strong\); the verdict uses the measured arm, Pass R\.$/);
    expect(stdout).toContain('the random router that ran (Pass R');
    expect(stdout).toMatch(/vs random at its mix \(Pass R, run, the verdict uses this\)/);
  });

  it('analyze --skip-execute rebuilds every Pass R figure and the headline from the trace DB alone', async () => {
    const json = join(dir, 'analyzed.json');
    const r = await bench(['analyze', '--skip-execute', '--db-path', withR, '--json', json], { env: ENV });
    expect(r.code, r.stderr).not.toBe(2);
    const again = JSON.parse(readFileSync(json, 'utf8')) as BenchReport;
    expect(again.workloads.filter((w) => w.pass === 'R')).toEqual(on.workloads.filter((w) => w.pass === 'R'));
    expect(again.protocol_metrics).toEqual(on.protocol_metrics);
    expect(again.headline).toEqual(on.headline);
  }, 120_000);
});
