import { fileURLToPath } from 'node:url';
import { validatorFor } from '../core/schemas.ts';
import { loadYamlValidated } from '../core/yaml-document.ts';
import type { PromptModelFile } from '../../schemas/types/prompt-model.ts';

/** The shipped knobs of the learned scorer, `runtime/data/prompt-model.json` (chosen on the MMLU dev split). */
export const DEFAULT_PROMPT_MODEL_PATH = fileURLToPath(new URL('../data/prompt-model.json', import.meta.url));

/** Loads and validates a prompt-model file; errors name the file and the field. */
export function loadPromptModelSettings(path: string = DEFAULT_PROMPT_MODEL_PATH): PromptModelFile {
  return loadYamlValidated<PromptModelFile>(path, validatorFor<PromptModelFile>('prompt-model.schema.json'));
}

let shipped: PromptModelFile | null = null;

/** The shipped knobs, read once per process. */
export function defaultPromptModelSettings(): PromptModelFile {
  shipped ??= loadPromptModelSettings();
  return shipped;
}
