import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { BenchReport } from '../../schemas/types/report.ts';
import { bench, REPO_ROOT, tempDir } from '../../test/support/cli.ts';
import { signalVerdict, type SignalResult } from './signal-verdict.ts';

/** A signal report with the given per-rep (score, check passed) on each arm. */
function report(cheap: [number | null, boolean | null][], strong: [number | null, boolean | null][], simulated = true): BenchReport {
  const wl = (pass: string, reps: [number | null, boolean | null][]) => ({
    workload: 'w',
    pass,
    reps: reps.map(([score, passed]) => ({
      score,
      check: passed === null ? null : { passed },
    })),
  });
  return {
    provenance: {
      actual_model: 'haiku',
      strong_model: 'sonnet',
      baseline_model: 'sonnet',
      seed_passes: cheap.length,
      actual_provider: simulated ? 'sim' : 'anthropic',
      seed: 7,
      ended_at: '2026-11-24T12:00:00.000000Z',
    },
    banner: simulated ? 'SIMULATED' : null,
    workloads: [wl('cheap', cheap), wl('strong', strong)],
  } as unknown as BenchReport;
}

const solved = (score: number): [number, boolean] => [score, true];
const unsolved = (score: number): [number, boolean] => [score, false];

describe('bench signal verdict (benchmark.md §4.2 on the gated score)', () => {
  it('is high at a score gap of 0.4 or more and marginal below; a reversed gap is never high', () => {
    expect(signalVerdict(report([unsolved(0.25), solved(0.75)], [solved(1), solved(0.8)]), 'w', true)).toMatchObject({
      score_gap: expect.closeTo(0.4, 12),
      verdict: 'high',
    });
    expect(signalVerdict(report([solved(0.6), solved(0.6)], [solved(0.9), solved(0.9)]), 'w', true).verdict).toBe('marginal');
    expect(signalVerdict(report([solved(1), solved(1)], [unsolved(0.2), unsolved(0.2)]), 'w', true).verdict).toBe('marginal');
  });

  it('takes the solved rate from the check verdict, not the score, and reports both gaps', () => {
    // A score of 0.7 with a failed check (a pre-gating score) is still unsolved.
    const r = signalVerdict(report([unsolved(0.7), unsolved(0.7), solved(0.9), unsolved(0.4)], [solved(1), solved(1), solved(1), unsolved(0.45)]), 'w', true);
    expect(r.cheap).toMatchObject({ solved: 1, solved_rate: 0.25 });
    expect(r.strong).toMatchObject({ solved: 3, solved_rate: 0.75 });
    expect(r.solved_gap).toBeCloseTo(0.5, 12);
    expect(r.score_gap).toBeCloseTo((3.45 - 2.7) / 4, 12);
  });

  it('counts a rep that never reached its check (no check, no score) as unsolved with score 0', () => {
    const r = signalVerdict(report([[null, null], solved(1)], [solved(1), solved(1)]), 'w', true);
    expect(r.cheap).toMatchObject({
      scores: [0, 1],
      solved: 1,
      solved_rate: 0.5,
    });
  });

  it('has no solved gap for a workload without a check, and records provider, seed and date', () => {
    const r: SignalResult = signalVerdict(report([[0.5, null]], [[1, null]], false), 'w', false);
    expect(r.solved_gap).toBeNull();
    expect(r.cheap.solved_rate).toBeNull();
    expect(r).toMatchObject({
      provider: 'anthropic',
      simulated: false,
      seed: 7,
      measured_at: '2026-11-24T12:00:00.000000Z',
      reps: 1,
    });
  });

  it(
    'end to end on the simulated provider: 4 reps per arm at temperature 0, printed, JSON, and --write round-trips through bench validate',
    { timeout: 180_000 },
    async () => {
      const dir = tempDir();
      cpSync(join(REPO_ROOT, 'workloads', 'fix-a-bug-small'), join(dir, 'fix-a-bug-small'), { recursive: true });
      const file = join(dir, 'fix-a-bug-small', 'workload.yaml');
      const before = readFileSync(file, 'utf8');
      const db = `${dir}/sig.db`;
      const r = await bench(['signal', '--workload', 'fix-a-bug-small', '--workloads-dir', dir, '--db-path', db, '--write'], {
        env: { PATH: process.env.PATH },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('SIMULATED PROVIDER');
      expect(r.stdout).toMatch(/score gap -?\d\.\d{3}, solved gap ([+−]?\d+ pts|n\/a) -> (high|marginal)/);
      const json = JSON.parse(readFileSync(db.replace(/\.db$/, '.signal.json'), 'utf8')) as SignalResult;
      expect(json.cheap.scores).toHaveLength(4);
      expect(json.strong.scores).toHaveLength(4);
      const full = JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;
      expect(full.provenance.temperature).toBe(0);
      expect(full.provenance.protocol).toBe('signal');

      // --write: the verdict and its block are in the file, every other line is as it was, and it validates.
      const after = readFileSync(file, 'utf8');
      const spec = parse(after) as {
        signal_strength: string;
        signal: Record<string, unknown>;
      };
      expect(spec.signal_strength).toBe(json.verdict);
      expect(spec.signal).toMatchObject({
        provider: 'sim',
        simulated: true,
        reps: 4,
        seed: 0,
        cheap_model: 'anthropic:claude-haiku-4-5',
        strong_model: 'anthropic:claude-sonnet-4-6',
      });
      expect(spec.signal['score_gap']).toBeCloseTo(json.score_gap!, 3);
      expect(spec.signal['solved_gap']).toBeCloseTo(json.solved_gap!, 3);
      expect(spec.signal['measured_at']).toBe(json.measured_at);
      const untouched = (t: string) => t.split('\n').filter((l) => !/^signal_strength:|^signal:|^ {2}\w+: /.test(l) || l.startsWith('  - '));
      expect(untouched(after)).toEqual(untouched(before));
      const v = await bench(['validate', join(dir, 'fix-a-bug-small')]);
      expect(v.code, v.stdout + v.stderr).toBe(0);
    },
  );

  it('needs --workload or --all, not both', async () => {
    const r = await bench(['signal', '--all', '--workload', 'fix-a-bug-small']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/--workload NAME.*--all/);
  });
});
