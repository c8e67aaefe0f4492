import { SetupError } from '../errors.ts';

/** The `--provider` values of spec §2. */
export type RequestedProvider = 'auto' | 'sim' | 'anthropic' | 'openai' | 'openai-compatible' | 'replay';

/** The environment variable holding each real provider's key. */
export const KEY_VARIABLES: Record<string, string> = { anthropic: 'ANTHROPIC_API_KEY', openai: 'OPENAI_API_KEY' };

/** What the run will actually use, and what the user should be told about it. */
export interface ProviderChoice {
  actual: 'sim';
  warnings: string[];
}

/**
 * `auto` means the model's real provider when its key is set, else `sim` (spec §2). Real adapters
 * are not built yet, so naming one is a setup error, and `auto` with a key set falls back to sim
 * with a warning rather than pretending.
 */
export function resolveProvider(requested: RequestedProvider, modelProvider: string, env: Readonly<Record<string, string | undefined>>): ProviderChoice {
  if (requested === 'sim') return { actual: 'sim', warnings: [] };
  if (requested === 'auto') {
    const keyVar = KEY_VARIABLES[modelProvider];
    if (keyVar && env[keyVar])
      return { actual: 'sim', warnings: [`${keyVar} is set, but the ${modelProvider} adapter is not available yet: this run uses the simulated provider`] };
    return { actual: 'sim', warnings: [] };
  }
  const keyVar = KEY_VARIABLES[requested];
  const keyNote = keyVar && !env[keyVar] ? ` (and ${keyVar} is not set)` : '';
  throw new SetupError(`--provider ${requested} is not available yet${keyNote}; use --provider sim or auto`);
}
