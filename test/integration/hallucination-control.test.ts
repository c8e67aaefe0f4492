import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import { bench, tempDir } from '../support/cli.ts';
import { competentOnly, copyWorkloads, rewriteSim } from '../support/workload-variants.ts';
import type { SimScript } from '../../schemas/types/sim.ts';

const NAME = 'architectural-explanation-without-hallucination';
const ENV = { PATH: process.env.PATH };

async function scoreWith(change: (s: SimScript) => SimScript) {
  const dir = copyWorkloads([NAME]);
  rewriteSim(dir, NAME, change);
  const db = join(tempDir(), 'h.db');
  await bench(['run', '--workloads-dir', dir, '--workload', NAME, '--db-path', db], { env: ENV });
  return (JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport).workloads[0]!.reps[0]!;
}

/** The competent path, except that turn 2's answer states a forbidden fact. */
function statesForbiddenFact(s: SimScript): SimScript {
  const c = competentOnly(s);
  const lie = s.turns[1]!.plans.find((p) => !p.competent)!;
  return { ...c, turns: [c.turns[0]!, { ...c.turns[1]!, plans: c.turns[1]!.plans.map((p) => ({ ...p, final: lie.final })) }] };
}

describe('architectural-explanation-without-hallucination (forbidden grounding)', () => {
  it('a grounded explanation scores 1; stating a forbidden fact lowers the score through no_forbidden_grounding', async () => {
    const honest = await scoreWith(competentOnly);
    expect(honest.check?.passed).toBe(true);
    expect(honest.score).toBe(1);
    const lying = await scoreWith(statesForbiddenFact);
    // The doc is still right (the check passes, so it is solved), but the answer names a Redis cache: weight 2
    // of the other 10 lost, inside the solved band: 0.5 + 0.5 · 8 / 10.
    expect(lying.check?.passed).toBe(true);
    expect(lying.score).toBeCloseTo(0.5 + 0.5 * (8 / 10), 12);
  });
});
