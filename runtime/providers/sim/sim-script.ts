import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Node } from 'yaml';
import { yamlLib } from '../../core/yaml-lib.ts';
import { cachedParse } from '../../core/parsed-file-cache.ts';
import { validatorFor } from '../../core/schemas.ts';
import { DataFileError, loadYamlValidated } from '../../core/yaml-document.ts';
import type { SimScript } from '../../../schemas/types/sim.ts';

export type { SimScript, SimTurn, SimPlan, SimStep } from '../../../schemas/types/sim.ts';

/** A semantic problem at a path such as ['turns', 0, 'plans', 1, 'competent']. */
interface Problem {
  path: (string | number)[];
  message: string;
  fix?: string;
}

/** Rules the schema cannot say: exactly one competent plan per turn, plan ids unique within a turn. */
function semanticProblems(script: SimScript): Problem[] {
  const problems: Problem[] = [];
  turnProblems(script.turns, ['turns'], problems);
  (script.workers ?? []).forEach((w, i) => turnProblems(w.turns, ['workers', i, 'turns'], problems));
  return problems;
}

function turnProblems(turns: SimScript['turns'], at: readonly (string | number)[], problems: Problem[]): void {
  turns.forEach((turn, t) => {
    const competent = turn.plans.flatMap((p, i) => (p.competent === true ? [i] : []));
    if (competent.length !== 1) {
      problems.push({
        path: competent.length > 1 ? [...at, t, 'plans', competent[1]!, 'competent'] : [...at, t, 'plans'],
        message: `turn ${t} has ${competent.length} plans with competent: true; exactly one is required`,
        fix: competent.length > 1 ? 'mark the other plans as mistakes' : 'mark the plan that does the job with competent: true',
      });
    }
    const seen = new Map<string, number>();
    turn.plans.forEach((p, i) => {
      const first = seen.get(p.id);
      if (first !== undefined) {
        problems.push({ path: [...at, t, 'plans', i, 'id'], message: `turn ${t}: plan id '${p.id}' repeats plan ${first}`, fix: 'give each plan of a turn its own id' });
      } else seen.set(p.id, i);
    });
  });
}

/** 1-based line and column of the YAML node at `path`, or of its deepest existing ancestor. */
function positionOf(text: string, path: readonly (string | number)[]): { line: number; col: number } | null {
  const { isMap, isSeq, LineCounter, parseDocument } = yamlLib();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  let node: Node | null = doc.contents;
  for (const key of path) {
    let child: Node | null = null;
    if (isMap(node)) child = (node.items.find((p) => (p.key as { value?: unknown } | null)?.value === key)?.value as Node | undefined) ?? null;
    else if (isSeq(node)) child = (node.items[Number(key)] as Node | undefined) ?? null;
    if (!child) break;
    node = child;
  }
  return node?.range ? lineCounter.linePos(node.range[0]) : null;
}

/**
 * Loads a workload's sim.yaml: schema-checked (defaults applied: competent false, weight 1),
 * then the semantic rules. Every problem is a DataFileError naming file:line:col. Read from the file
 * (no `text`), an unchanged script comes from the compiled CLI's parsed-file cache.
 */
export function loadSimScript(file: string, text?: string): SimScript {
  if (text !== undefined) return parseSimScript(file, text);
  return cachedParse('sim', resolve(file), () => parseSimScript(file, readFileSync(file, 'utf8')));
}

function parseSimScript(file: string, text: string): SimScript {
  const script = loadYamlValidated<SimScript>(file, validatorFor<SimScript>('sim.schema.json'), text);
  const problems = semanticProblems(script);
  const first = problems[0];
  if (first) {
    const pos = positionOf(text, first.path);
    const more = problems.length > 1 ? ` [+${problems.length - 1} more]` : '';
    throw new DataFileError(file, pos?.line ?? null, pos?.col ?? null, first.message + more, first.fix);
  }
  return script;
}
