import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import { bench, tempDir } from '../../test/support/cli.ts';
import { signalVerdict } from './signal-verdict.ts';

/** A signal report with the given per-rep scores on each arm. */
function report(cheap: number[], strong: number[]): BenchReport {
  const wl = (pass: string, scores: number[]) => ({ workload: 'w', pass, reps: scores.map((score) => ({ score })) });
  return {
    provenance: { actual_model: 'haiku', strong_model: 'sonnet', baseline_model: 'sonnet', seed_passes: cheap.length },
    banner: null,
    workloads: [wl('cheap', cheap), wl('strong', strong)],
  } as unknown as BenchReport;
}

describe('bench signal verdict (benchmark.md §4.2)', () => {
  it('is high at a gap of 0.4 or more and marginal below', () => {
    expect(signalVerdict(report([0.5, 0.5, 0.5, 0.5], [0.9, 0.9, 0.9, 0.9]), 'w')).toMatchObject({ gap: expect.closeTo(0.4, 12), verdict: 'high' });
    expect(signalVerdict(report([0.6, 0.6, 0.6, 0.6], [0.9, 0.9, 0.9, 0.9]), 'w')).toMatchObject({ verdict: 'marginal' });
    // A reversed gap (cheap better) is never high.
    expect(signalVerdict(report([1, 1, 1, 1], [0.2, 0.2, 0.2, 0.2]), 'w').verdict).toBe('marginal');
  });

  it('end to end on the simulated provider: 4 reps per arm at temperature 0, printed and written as JSON', async () => {
    const db = `${tempDir()}/sig.db`;
    const r = await bench(['signal', '--workload', 'write-a-doc-from-notes', '--db-path', db], { env: { PATH: process.env.PATH } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('SIMULATED PROVIDER');
    expect(r.stdout).toMatch(/gap -?\d\.\d{3} -> (high|marginal)/);
    const json = JSON.parse(readFileSync(db.replace(/\.db$/, '.signal.json'), 'utf8')) as { cheap_scores: number[]; strong_scores: number[]; verdict: string };
    expect(json.cheap_scores).toHaveLength(4);
    expect(json.strong_scores).toHaveLength(4);
    const full = JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;
    expect(full.provenance.temperature).toBe(0);
    expect(full.provenance.protocol).toBe('signal');
  });
});
