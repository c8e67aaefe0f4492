import type { SkillActivationRegistry } from '../../context/activation-registry.ts';
import type { SkillStore } from '../../context/skill-store.ts';
// The leaf module, not the context index: the context assembler imports these tools.
import { PRELOADED_MARK } from '../../context/discovery-index.ts';
import type { Tool } from '../tool.ts';
import { SKILL_TOOL_SIDE_EFFECTS } from './skill-load.ts';

/** What skill_search needs from its session. */
export interface SkillSearchOptions {
  skills: SkillStore;
  registry: SkillActivationRegistry;
}

/**
 * `skill_search {query}` (context-assembler.md §5.2.1): the skills whose name or description
 * contains every word of the query, one `- name: description` line each, `[preloaded]` marked.
 */
export function createSkillSearchTool(o: SkillSearchOptions): Tool {
  return {
    name: 'skill_search',
    description:
      'Finds skills whose name or description contains every word of the query (case-insensitive). Returns one line per match; load a match with skill_load.',
    side_effects: SKILL_TOOL_SIDE_EFFECTS.skill_search,
    input_schema: {
      type: 'object',
      additionalProperties: false,
      required: ['query'],
      properties: { query: { type: 'string', minLength: 1, description: 'One or more words to look for.' } },
    },
    async run(input) {
      const query = (input.query as string).trim();
      const hits = o.skills.search(query);
      if (hits.length === 0) {
        return { content: `no skill matches "${query}"; ${o.skills.skills.length} skills are listed in the system prompt` };
      }
      const lines = hits.map((s) => `- ${s.name}${o.registry.isPreloaded(s.name) ? ` ${PRELOADED_MARK}` : ''}: ${s.description}`);
      return { content: [`${hits.length} ${hits.length === 1 ? 'skill matches' : 'skills match'} "${query}":`, ...lines].join('\n') };
    },
  };
}
