import type { SkillActivationRegistry } from '../../context/activation-registry.ts';
import type { Skill } from '../../context/skill.ts';
import type { SkillStore } from '../../context/skill-store.ts';
import { ToolError, type SideEffect, type Tool, type ToolContext, type ToolOutput } from '../tool.ts';

/**
 * The skill tools are built per session (they hold its activation budget), so whoever needs their
 * side effects before a session exists (slot 4's fingerprint features) reads them here.
 */
export const SKILL_TOOL_SIDE_EFFECTS = Object.freeze({ skill_load: 'read', skill_search: 'none' } as const satisfies Record<string, SideEffect>);

/** What skill_load needs from its session. */
export interface SkillLoadOptions {
  skills: SkillStore;
  registry: SkillActivationRegistry;
  /** Called once per body returned for an explicit activation; emits skill.loaded (`on_demand`). */
  onLoaded(skill: Skill, call: ToolContext['call']): void;
}

/** §5.2.2: the answer for a skill whose body padding already put in the system prompt. */
export function preloadedPointer(skill: Skill): string {
  return [
    `# Skill: ${skill.name} (source: ${skill.source})`,
    '',
    "This skill's body is already loaded in the system prompt (pre-activated",
    `at session start). Re-read the system prompt section "# Skill: ${skill.name}"`,
    'for its operating instructions.',
  ].join('\n');
}

/** §5.2.7 q4: the answer for a skill this session already loaded with skill_load. */
export function alreadyLoadedPointer(skill: Skill): string {
  return [
    `# Skill: ${skill.name} (source: ${skill.source})`,
    '',
    "This skill's body was already loaded earlier in this session: re-read the earlier",
    'skill_load result for its operating instructions. Loading it again uses no budget.',
  ].join('\n');
}

/**
 * `skill_load {name}` (context-assembler.md §5.2.3): returns the skill's body, which then lives in
 * the conversation as this tool result; a pointer for a pre-activated or already-loaded skill; and
 * fails with `execution_error` naming the cap when the session's activation budget is spent.
 */
export function createSkillLoadTool(o: SkillLoadOptions): Tool {
  return {
    name: 'skill_load',
    description:
      "Loads a skill's instructions by name, from the Skills list in the system prompt. The body stays in the conversation for the rest of the session, and a session may load only a few skills, so load one only when its description fits the task.",
    side_effects: SKILL_TOOL_SIDE_EFFECTS.skill_load,
    input_schema: {
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      properties: { name: { type: 'string', minLength: 1, description: 'The skill name, as listed.' } },
    },
    async run(input, ctx): Promise<ToolOutput> {
      const name = input.name as string;
      const skill = o.skills.get(name);
      if (!skill) {
        const names = o.skills.skills.map((s) => s.name).join(', ');
        throw new ToolError('not_found', `no skill named '${name}'; available: ${names || 'none'}`);
      }
      const decision = o.registry.request(skill.name, skill.size_tokens);
      switch (decision.kind) {
        case 'already_preloaded':
          return { content: preloadedPointer(skill), metadata: { already_preloaded: true } };
        case 'already_activated':
          return { content: alreadyLoadedPointer(skill), metadata: { already_activated: true } };
        case 'refused':
          throw new ToolError('execution_error', decision.message);
        case 'activated':
          o.onLoaded(skill, ctx.call);
          return { content: skill.block };
      }
    },
  };
}
