import { SetupError } from '../errors.ts';

/** The `--provider` values of spec §2. */
export type RequestedProvider = 'auto' | 'sim' | 'anthropic' | 'openai' | 'openai-compatible' | 'replay';

/** The environment variable holding each real provider's key. */
export const KEY_VARIABLES: Readonly<Record<string, string>> = { anthropic: 'ANTHROPIC_API_KEY', openai: 'OPENAI_API_KEY', 'openai-compatible': 'OPENAI_API_KEY' };

/** The backend a run uses (replay is decided before this). */
export type ResolvedBackend = 'sim' | 'anthropic' | 'openai' | 'openai-compatible';

/**
 * `auto` is the model's real provider when its key is set, else `sim` (spec §2). A real provider named
 * without its key is a setup error naming the variable (never its value). `openai-compatible` needs
 * `--base-url`; its key is optional (local servers such as Ollama take none).
 */
export function resolveBackend(requested: Exclude<RequestedProvider, 'replay'>, modelProvider: string, env: Readonly<Record<string, string | undefined>>, baseURL: string | null): ResolvedBackend {
  if (requested === 'sim') return 'sim';
  if (requested === 'auto') {
    const keyVar = KEY_VARIABLES[modelProvider];
    return keyVar && env[keyVar] ? (modelProvider as ResolvedBackend) : 'sim';
  }
  if (requested === 'openai-compatible') {
    if (!baseURL) throw new SetupError('--provider openai-compatible needs --base-url (e.g. http://localhost:11434/v1 for Ollama)');
    return requested;
  }
  const keyVar = KEY_VARIABLES[requested]!;
  if (!env[keyVar]) throw new SetupError(`--provider ${requested} needs ${keyVar} in the environment; it is not set`);
  if (requested !== modelProvider) throw new SetupError(`--provider ${requested} cannot serve --model of provider ${modelProvider}; pick a ${requested} model`);
  return requested;
}
