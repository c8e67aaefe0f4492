import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BASE_PROMPT_PATH = fileURLToPath(new URL('../data/prompts/agent-system.md', import.meta.url));

/** The two system segments of context-assembler.md §2. */
export interface SystemSegments {
  system: string | null;
  system_volatile: string | null;
}

/**
 * Stable segment: the agent persona (byte-stable across turns so it caches). Volatile segment:
 * the workspace's own notes (`.metis/NOTES.md`), re-read every turn because the agent may edit it.
 */
export function assembleSystemPrompt(workspaceRoot: string, basePath: string = BASE_PROMPT_PATH): SystemSegments {
  const notes = join(workspaceRoot, '.metis', 'NOTES.md');
  return {
    system: readFileSync(basePath, 'utf8'),
    system_volatile: existsSync(notes) ? readFileSync(notes, 'utf8') : null,
  };
}
