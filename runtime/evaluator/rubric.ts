import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { validatorFor, formatAjvErrors } from '../core/schemas.ts';
import type { HeuristicRubric } from '../../schemas/types/rubric.ts';

export type { HeuristicRubric } from '../../schemas/types/rubric.ts';

/** Names of the heuristic rubric's signals. */
export type SignalName = keyof HeuristicRubric['signals'];

/** The shipped default rubric file. */
export const DEFAULT_RUBRIC_PATH = fileURLToPath(new URL('../data/rubrics/heuristic.json', import.meta.url));

/** Loads and validates a heuristic rubric file. */
export function loadRubric(path: string = DEFAULT_RUBRIC_PATH): HeuristicRubric {
  const data: unknown = JSON.parse(readFileSync(path, 'utf8'));
  const validate = validatorFor<HeuristicRubric>('rubric.schema.json');
  if (!validate(data)) throw new Error(`${path}: invalid rubric: ${formatAjvErrors(validate.errors).join('; ')}`);
  return data;
}
