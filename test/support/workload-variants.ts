import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import type { SimScript } from '../../schemas/types/sim.ts';
import { REPO_ROOT, tempDir } from './temp.ts';

/** Copies shipped workloads into a fresh workloads dir so a test can change their sim scripts. */
export function copyWorkloads(names: readonly string[]): string {
  const dir = join(tempDir('bench-workloads-'), 'workloads');
  mkdirSync(dir, { recursive: true });
  for (const n of names) cpSync(join(REPO_ROOT, 'workloads', n), join(dir, n), { recursive: true });
  return dir;
}

/** Rewrites a copied workload's sim.yaml. */
export function rewriteSim(workloadsDir: string, name: string, change: (s: SimScript) => SimScript): void {
  const file = join(workloadsDir, name, 'sim.yaml');
  // lineWidth 0: folding long block scalars can change their text (leading indentation).
  writeFileSync(file, stringify(change(parse(readFileSync(file, 'utf8')) as SimScript), { lineWidth: 0 }));
}

type Turns = SimScript['turns'];

const competentTurns = (turns: Turns): Turns =>
  turns.map((t) => {
    const good = t.plans.find((p) => p.competent)!;
    return { ...t, plans: t.plans.map((p) => (p.competent ? p : { ...good, id: p.id, competent: false })) };
  });

/** Every plan of every turn (workers' too) becomes the competent plan, ids kept unique: the run plays it whatever the odds. */
export function competentOnly(s: SimScript): SimScript {
  return { ...s, turns: competentTurns(s.turns), ...(s.workers ? { workers: s.workers.map((w) => ({ ...w, turns: competentTurns(w.turns) })) } : {}) };
}

/** Every plan does nothing and says it is done: the do-nothing run. */
export function doNothing(s: SimScript): SimScript {
  return { ...s, turns: s.turns.map((t) => ({ ...t, plans: t.plans.map((p) => ({ ...p, steps: [], final: 'Done.' })) })) };
}
