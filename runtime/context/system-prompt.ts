import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolSpec } from '../types/request.ts';
import { padStablePrefix, PREFIX_TARGET } from './prefix-padding.ts';

const PERSONA_PATH = fileURLToPath(new URL('../data/prompts/agent-system.md', import.meta.url));
const OPERATING_CONTEXT_PATH = fileURLToPath(new URL('../data/prompts/operating-context.md', import.meta.url));

/** The two system segments of context-assembler.md §2. */
export interface SystemSegments {
  system: string | null;
  system_volatile: string | null;
}

/** Files the agent may change mid-session; they go after the cache breakpoint (context-assembler.md §5). */
const VOLATILE_FILES = [join('.metis', 'NOTES.md'), 'USER.md', 'MEMORY.md'];

let persona: string | null = null;
let operatingContext: string | null = null;
const stableByTools = new Map<string, string>();

/**
 * Stable segment: the persona, padded with the operating-context block until tools + stable system
 * reach the minimum cacheable prefix (§5.1) — byte-identical every turn, so it caches. Volatile
 * segment: the workspace files the agent may edit, re-read every turn, after the breakpoint.
 */
export function assembleSystemPrompt(workspaceRoot: string, tools: readonly ToolSpec[]): SystemSegments {
  persona ??= readFileSync(PERSONA_PATH, 'utf8');
  operatingContext ??= readFileSync(OPERATING_CONTEXT_PATH, 'utf8');
  const key = tools.map((t) => t.name).join(',');
  let stable = stableByTools.get(key);
  if (stable === undefined) {
    stable = padStablePrefix({ base: persona, tools, padding: [operatingContext], target: PREFIX_TARGET });
    stableByTools.set(key, stable);
  }
  const volatile = VOLATILE_FILES.map((f) => join(workspaceRoot, f))
    .filter((p) => existsSync(p))
    .map((p) => readFileSync(p, 'utf8'));
  return { system: stable, system_volatile: volatile.length ? volatile.join('\n\n') : null };
}
