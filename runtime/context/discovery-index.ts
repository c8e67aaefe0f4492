import type { Skill } from './skill.ts';

/** The `[preloaded]` mark of context-assembler.md §5.2.2: the body is already in the system prompt. */
export const PRELOADED_MARK = '[preloaded]';

/**
 * The skill discovery index of the stable prompt (context-assembler.md §5.2): one line per skill,
 * `- name: description`, or `- name [preloaded]: description` when its body is inlined below.
 * Pure, so the stable prefix stays byte-identical for the same skills.
 */
export function renderDiscoveryIndex(skills: readonly Skill[], preloaded: ReadonlySet<string>): string {
  const lines = [
    '## Skills',
    '',
    'Skills are task-specific instructions kept in this workspace. When a description fits the task, call skill_load with its name before you start; skill_search finds skills by a word. Load only what you will use: a loaded skill stays in the conversation and a session may load only a few.',
  ];
  if (skills.some((s) => preloaded.has(s.name))) {
    lines.push(`A skill marked ${PRELOADED_MARK} is already in this prompt under its "# Skill:" heading; read it there instead of loading it.`);
  }
  lines.push('');
  for (const s of skills) lines.push(`- ${s.name}${preloaded.has(s.name) ? ` ${PRELOADED_MARK}` : ''}: ${s.description}`);
  return lines.join('\n');
}
