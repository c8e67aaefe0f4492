import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_CACHEABLE_PREFIX_TOKENS } from '../../runtime/context/index.ts';
import type { BenchReport } from '../../schemas/types/report.ts';
import type { SimScript } from '../../schemas/types/sim.ts';
import { bench, tempDir } from '../support/cli.ts';
import { competentOnly, copyWorkloads, rewriteSim } from '../support/workload-variants.ts';

// follow-workspace-skill (context-assembler.md §5.2, open question 1): the workspace has a small skill
// (run-tests) that §5.1 padding pre-activates, and a ~4,800-token one (db-migrations) that cannot fit
// the padding band, so the agent must skill_load it; the hidden check enforces rules only that skill states.
const NAME = 'follow-workspace-skill';

interface Row {
  type: string;
  turn_id: string | null;
  payload: Record<string, unknown>;
}

interface Run {
  report: BenchReport;
  events: Row[];
}

/** Every plan of the turn becomes the plan called `id`, so the run plays it whatever the odds. */
const onlyPlan =
  (id: string) =>
  (s: SimScript): SimScript => ({
    ...s,
    turns: s.turns.map((t) => {
      const plan = t.plans.find((p) => p.id === id)!;
      return { ...t, plans: t.plans.map((p) => ({ ...plan, id: p.id, competent: p.competent })) };
    }),
  });

async function run(change: (s: SimScript) => SimScript): Promise<Run> {
  const dir = copyWorkloads([NAME]);
  rewriteSim(dir, NAME, change);
  const db = join(tempDir(), 'r.db');
  const r = await bench(['run', '--workloads-dir', dir, '--workload', NAME, '--db-path', db, '--provider', 'sim'], { env: { PATH: process.env.PATH } });
  expect(r.code, r.stderr).not.toBe(2);
  const conn = new Database(db, { readonly: true });
  try {
    const rows = conn.prepare('SELECT type, turn_id, payload_json FROM events ORDER BY rowid').all() as { type: string; turn_id: string | null; payload_json: string }[];
    const events = rows.map((e) => ({ type: e.type, turn_id: e.turn_id, payload: JSON.parse(e.payload_json) as Record<string, unknown> }));
    return { report: JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport, events };
  } finally {
    conn.close();
  }
}

const skillLoads = (events: Row[]) => events.filter((e) => e.type === 'skill.loaded');
const reasons = (events: Row[]) => skillLoads(events).map((e) => [e.payload.skill_id, e.payload.load_reason]);

describe('follow-workspace-skill: skill activation on the sim provider (context-assembler.md §5.2)', () => {
  it('competent run: run-tests is pre-activated (always), db-migrations is loaded on demand by skill_load, and the check passes', async () => {
    const { report, events } = await run(competentOnly);
    const rep = report.workloads[0]!.reps[0]!;
    expect(rep.check?.passed, rep.check?.output_tail).toBe(true);
    expect(rep.score).toBe(1);

    expect(reasons(events)).toEqual([
      ['run-tests', 'always'],
      ['db-migrations', 'on_demand'],
    ]);
    const [always, onDemand] = skillLoads(events);
    // Pre-activation happens at session start, outside any turn, before the first turn starts.
    expect(always!.turn_id).toBeNull();
    expect(events.indexOf(always!)).toBeLessThan(events.findIndex((e) => e.type === 'turn.started'));
    // Too big for the padding band on its own, which is why it was not pre-activated.
    expect(onDemand!.payload.load_size_tokens as number).toBeGreaterThan(MAX_CACHEABLE_PREFIX_TOKENS - 1_000);
    // The on-demand load is the one the agent's skill_load call asked for, inside the turn.
    expect(onDemand!.turn_id).not.toBeNull();
    const loadCall = events.find((e) => e.type === 'tool.called' && e.payload.tool_name === 'skill_load')!;
    expect(onDemand!.payload.triggered_by_tool_use_id).toBe(loadCall.payload.tool_use_id);
    expect(events.some((e) => e.type === 'tool.called' && e.payload.tool_name === 'skill_search')).toBe(true);
    expect(events.filter((e) => e.type === 'tool.failed')).toEqual([]);
  });

  it('skip-the-skill run: only the pre-activation, no on_demand load, and the hidden check fails though the visible tests pass', async () => {
    const { report, events } = await run(onlyPlan('guesses-from-existing-files'));
    const rep = report.workloads[0]!.reps[0]!;
    expect(rep.check?.passed).toBe(false);
    expect(rep.check?.output_tail).toMatch(/test_flag_column_follows_the_naming_and_type_rules|test_new_checksum_covers_the_normalised_up_section/);

    expect(reasons(events)).toEqual([['run-tests', 'always']]);
    expect(skillLoads(events).filter((e) => e.payload.load_reason === 'on_demand')).toEqual([]);
    expect(events.some((e) => e.type === 'tool.called' && String(e.payload.tool_name).startsWith('skill_'))).toBe(false);
    // The fixture's own tests pass: only the skill's rules tell this plan apart from the competent one.
    const shell = events.filter((e) => e.type === 'tool.completed' && e.payload.command_executed === 'python3 run_tests.py');
    expect(shell.map((e) => e.payload.success)).toEqual([true]);
  });

  it.each(['skims-checksum-rule', 'forgets-schema-snapshot'])('%s loads the skill on demand but still fails the check', async (plan) => {
    const { report, events } = await run(onlyPlan(plan));
    expect(report.workloads[0]!.reps[0]!.check?.passed).toBe(false);
    expect(reasons(events)).toEqual([
      ['run-tests', 'always'],
      ['db-migrations', 'on_demand'],
    ]);
  });
});
