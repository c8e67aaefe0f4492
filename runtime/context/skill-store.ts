import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../core/logger.ts';
import { resolveInWorkspace } from '../sandbox/index.ts';
import { parseSkillFile } from './skill-file.ts';
import type { Skill } from './skill.ts';

/** Where a workspace keeps its skills: `<workspace>/.metis/skills/<name>/SKILL.md`. */
export const WORKSPACE_SKILLS_DIR = join('.metis', 'skills');

/** The skills one session can see, read once at session start and frozen (the prefix must not move). */
export interface SkillStore {
  /** Every skill, name-ascending. */
  readonly skills: readonly Skill[];
  get(name: string): Skill | undefined;
  /** Skills whose name or description contains every word of `query` (case-insensitive), name-ascending. */
  search(query: string): Skill[];
}

/** A store over the given skills (sorted by name; a repeated name keeps the first). */
export function createSkillStore(skills: readonly Skill[]): SkillStore {
  const byName = new Map<string, Skill>();
  for (const s of skills) if (!byName.has(s.name)) byName.set(s.name, s);
  const sorted = Object.freeze([...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
  return {
    skills: sorted,
    get: (name) => byName.get(name),
    search(query) {
      const words = query.toLowerCase().split(/\s+/).filter(Boolean);
      return sorted.filter((s) => {
        const hay = `${s.name} ${s.description}`.toLowerCase();
        return words.length > 0 && words.every((w) => hay.includes(w));
      });
    },
  };
}

/**
 * Reads `<workspaceRoot>/.metis/skills/<name>/SKILL.md` for every subdirectory, in name order. A
 * broken skill (bad front matter, a symlink out of the workspace) is skipped with a WARN naming the
 * file and line, so one bad file does not take the session down.
 */
export function loadSkillStore(o: { workspaceRoot: string; logger: Logger }): SkillStore {
  const dir = join(o.workspaceRoot, WORKSPACE_SKILLS_DIR);
  if (!existsSync(dir)) return createSkillStore([]);
  const skills: Skill[] = [];
  const names = readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() || d.isSymbolicLink())
    .map((d) => d.name)
    .sort();
  for (const name of names) {
    const rel = join(WORKSPACE_SKILLS_DIR, name, 'SKILL.md');
    try {
      const file = resolveInWorkspace(o.workspaceRoot, rel);
      if (!existsSync(file)) continue;
      skills.push(parseSkillFile(rel, readFileSync(file, 'utf8'), name, 'workspace'));
    } catch (e) {
      o.logger.log('warn', 'skill skipped', { file: rel, error: e instanceof Error ? e.message : String(e) });
    }
  }
  return createSkillStore(skills);
}
