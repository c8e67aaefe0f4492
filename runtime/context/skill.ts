import { estimateTokens } from '../sessions/estimate-tokens.ts';

/** Which directory served a skill (catalog §6.6 `skill.loaded.source`). */
export type SkillSource = 'global' | 'workspace';

/** One skill read from `<dir>/<name>/SKILL.md` (context-assembler.md §5.2). */
export interface Skill {
  /** Front-matter `name`; equals its directory name. Also the `skill_id` of skill.loaded. */
  name: string;
  /** Front-matter `description`, folded to one line for the discovery index. */
  description: string;
  /** The Markdown after the front matter, trimmed. */
  body: string;
  source: SkillSource;
  /** Front-matter `version` (or `metadata.version`), else `sha256:<12 hex>` of the file. */
  version: string;
  /** `# Skill: <name> (source: <source>)` and the body: what skill_load returns and padding inlines. */
  block: string;
  /** Heuristic tokens (chars / 4) of `block`: `load_size_tokens` and what the activation budget counts. */
  size_tokens: number;
}

/** The heading every skill body is shown under, in the system prompt and in skill_load results. */
export function skillHeading(name: string, source: SkillSource): string {
  return `# Skill: ${name} (source: ${source})`;
}

/** Builds a Skill, deriving its block and size from the parts. */
export function createSkill(parts: Pick<Skill, 'name' | 'description' | 'body' | 'source' | 'version'>): Skill {
  const block = `${skillHeading(parts.name, parts.source)}\n\n${parts.body}`;
  const size_tokens = estimateTokens({ system: block, system_volatile: null, tools: [], messages: [] });
  return Object.freeze({ ...parts, description: parts.description.replace(/\s+/g, ' ').trim(), block, size_tokens });
}
