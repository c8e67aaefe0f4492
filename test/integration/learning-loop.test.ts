import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import { bench, tempDir } from '../support/cli.ts';

/**
 * A five-turn workload: turn 1's competent plan writes the right answer and its mistake a wrong one
 * (the hidden check tells them apart); turns 2-5 only look around. `difficulty` sets how often each
 * model profile finds turn 1's competent plan: P = sigmoid(10 (competence - difficulty)). Five turns
 * with different intents give five fingerprints per workload, so with two models each workload fills
 * the K = 10 cluster by itself, as a real multi-turn workload does. (With fewer, K = 10 reaches into
 * the other workload's outcomes, which §8.3 scores without regard to similarity — see the A3 finding
 * in docs/results.md.)
 */
function addWorkload(root: string, name: string, difficulty: number): void {
  const dir = join(root, name);
  mkdirSync(join(dir, 'workspace'), { recursive: true });
  mkdirSync(join(dir, 'check'), { recursive: true });
  writeFileSync(join(dir, 'workspace', 'answer.txt'), 'unanswered\n');
  writeFileSync(join(dir, 'check', 'expected.txt'), 'right\n');
  writeFileSync(
    join(dir, 'workload.yaml'),
    `name: ${name}\ndescription: answer the question in answer.txt\nsuite_version: 1\nsignal_strength: marginal\nturns:\n  - prompt: "Put the right answer in answer.txt."\n${LOOK_TURNS.map((p) => `  - prompt: "${p}"\n`).join('')}evaluate:\n  check:\n    command: "cmp -s answer.txt .bench-check/expected.txt"\n    timeout_seconds: 10\n`,
  );
  const plan = (id: string, competent: boolean, text: string) =>
    `      - id: ${id}\n        competent: ${competent}\n        steps:\n          - tool_calls:\n              - tool: write_file\n                input: { path: answer.txt, content: "${text}\\n" }\n        final: "Wrote the answer."\n`;
  const look = (id: string, competent: boolean, tool: string) =>
    `      - id: ${id}\n        competent: ${competent}\n        steps:\n          - tool_calls:\n              - tool: ${tool}\n                input: { path: . }\n        final: "Looked."\n`;
  const lookTurns = LOOK_TURNS.map(() => `  - difficulty: 0\n    plans:\n${look('list', true, 'list_files')}${look('list-again', false, 'list_files')}`).join('');
  writeFileSync(join(dir, 'sim.yaml'), `version: 1\nturns:\n  - difficulty: ${difficulty}\n    plans:\n${plan('right', true, 'right')}${plan('wrong', false, 'wrong')}${lookTurns}`);
}

// Each follow-up carries a different intent tag, so every turn of a workload has its own fingerprint.
const LOOK_TURNS = ['Look for any failing tests.', 'Debug anything odd you see.', 'Is there a design note?', 'Would a git commit be ready?'];
const TURNS = 1 + LOOK_TURNS.length;

const PASSES = 6;
let report: BenchReport;
let stdout = '';
let dbPath = '';

beforeAll(async () => {
  const root = join(tempDir(), 'workloads');
  // haiku (0.60) finds the competent plan ~18% of the time here, sonnet (0.85) ~73%.
  addWorkload(root, 'strong-wins', 0.75);
  // Both find it essentially always.
  addWorkload(root, 'both-fine', 0.1);
  const db = join(tempDir(), 'a3.db');
  dbPath = db;
  const r = await bench(['run', '--protocol', 'a3', '--seed-passes', String(PASSES), '--workloads-dir', root, '--include-marginal', '--db-path', db], { env: { PATH: process.env.PATH } });
  stdout = r.stdout;
  expect(r.code, r.stderr).not.toBe(2);
  report = JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;
}, 120_000);

describe('the learning loop end to end on the simulated provider (A3)', () => {
  it('runs passes A, B, C and the random arm R, says D was not run, and the seeding left every turn in the store', () => {
    const m = report.protocol_metrics!;
    expect(m.passes.map((p) => [p.pass, p.workload_runs])).toEqual([
      ['A', 2 * PASSES],
      ['B', 2 * PASSES],
      ['C', 2 * PASSES],
      ['R', 2 * PASSES],
    ]);
    expect(m.pass_d.run).toBe(false);
    expect(report.recording_path_errors).toEqual([]);
    expect(stdout).toContain('A3 protocol');
    expect(stdout).toContain('Pass D not run');
  });

  it('the strong arm really is better on strong-wins and not on both-fine (the ground truth)', () => {
    const q = (pass: string, w: string) => report.workloads.find((x) => x.pass === pass && x.workload === w)!.quality_mean!;
    expect(q('B', 'strong-wins') - q('A', 'strong-wins')).toBeGreaterThan(0.15);
    expect(Math.abs(q('B', 'both-fine') - q('A', 'both-fine'))).toBeLessThan(0.05);
  });

  it('slot 4 inverts routing to the strong model where it does better, and leaves the other on the cheap default', () => {
    const turns = report.protocol_metrics!.routed_turns;
    const strongWins = turns.filter((t) => t.workload === 'strong-wins');
    const bothFine = turns.filter((t) => t.workload === 'both-fine');
    expect(strongWins.length).toBe(TURNS * PASSES);
    expect(strongWins.every((t) => t.inverted && t.chosen_model === 'anthropic:claude-sonnet-4-6')).toBe(true);
    expect(bothFine.some((t) => t.inverted)).toBe(false);
    expect(bothFine.every((t) => t.chosen_model === 'anthropic:claude-haiku-4-5')).toBe(true);
    // Each turn slot 4 won has its pattern.matched, parented by that turn's route.decided.
    const conn = new Database(dbPath, { readonly: true });
    const matched = conn.prepare("SELECT m.turn_id AS t, r.type AS parent, m.payload_json AS p FROM events m JOIN events r ON r.id = m.parent_event_id WHERE m.type = 'pattern.matched'").all() as { t: string; parent: string; p: string }[];
    conn.close();
    // Each carries the K-cluster it was scored on: one row per neighbour, the chosen model among them.
    for (const m of matched) {
      const p = JSON.parse(m.p) as { chosen_model: string; k_cluster_size: number; neighbors: { primary_model: string; similarity: number }[] };
      expect(p.neighbors).toHaveLength(p.k_cluster_size);
      expect(p.neighbors.map((n) => n.primary_model)).toContain(p.chosen_model);
    }
    const won = turns.filter((t) => t.pattern_verdict === 'chose').map((t) => t.turn_id).sort();
    expect(matched.map((m) => m.t).sort()).toEqual(won);
    expect(new Set(matched.map((m) => m.parent))).toEqual(new Set(['route.decided']));
    // The K-NN's per-model scores are in the report for every routed turn.
    expect(strongWins[0]!.knn_scores!.map((s) => s.model).sort()).toEqual(['anthropic:claude-haiku-4-5', 'anthropic:claude-sonnet-4-6']);
  });

  it('reports the spec §8.3 metrics consistently', () => {
    const m = report.protocol_metrics!;
    expect(m.slot4.routed_turns).toBe(2 * TURNS * PASSES);
    expect(m.slot4.inversion_rate).toBeCloseTo(0.5, 12);
    expect(m.strong_call_rate).toBeCloseTo(0.5, 12);
    // Cluster tightness is measured with the workload partition off: here the two workloads' turns are
    // structurally identical position by position, so the figure is defined but says nothing about routing.
    const t = m.cluster_tightness.v1!;
    expect(t.fingerprints).toBe(2 * TURNS);
    expect(t.separation).toBeCloseTo(t.intra! - t.inter!, 12);
    expect(m.performance_gap_recovered).not.toBeNull();
    expect(m.savings_vs_measured_strong_pct).not.toBeNull();
  });
});
