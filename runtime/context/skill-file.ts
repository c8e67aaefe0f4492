import { createHash } from 'node:crypto';
import type { ValidateFunction } from 'ajv';
import { sharedAjv } from '../core/schemas.ts';
import { DataFileError, loadYamlValidated } from '../core/yaml-document.ts';
import { createSkill, type Skill, type SkillSource } from './skill.ts';

/** The front matter of a SKILL.md; other keys (license, allowed-tools, ...) are allowed and ignored. */
export interface SkillFrontMatter {
  name: string;
  description: string;
  version?: string | number;
  metadata?: { version?: string | number; [key: string]: unknown };
  [key: string]: unknown;
}

// Kept beside the parser rather than in schemas/: it is the only reader, and the open
// agentskills.io format lets a skill carry keys this runtime does not know.
const FRONT_MATTER_SCHEMA = {
  type: 'object',
  required: ['name', 'description'],
  properties: {
    name: { type: 'string', pattern: '^[a-z0-9]+(-[a-z0-9]+)*$', maxLength: 64 },
    description: { type: 'string', minLength: 1, maxLength: 1024 },
    version: { type: ['string', 'number'] },
    metadata: { type: 'object', properties: { version: { type: ['string', 'number'] } } },
  },
} as const;

let validate: ValidateFunction<SkillFrontMatter> | undefined;

const FENCE = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * Parses one SKILL.md: YAML front matter between `---` fences (`name` matching `dirName`,
 * `description`), then a non-empty Markdown body. Problems throw DataFileError with the file's line.
 */
export function parseSkillFile(file: string, text: string, dirName: string, source: SkillSource): Skill {
  const fence = FENCE.exec(text);
  if (!fence) throw new DataFileError(file, 1, 1, 'SKILL.md must start with YAML front matter between --- lines', 'add name and description');
  validate ??= sharedAjv().compile<SkillFrontMatter>(FRONT_MATTER_SCHEMA);
  let meta: SkillFrontMatter;
  try {
    meta = loadYamlValidated(file, validate, fence[1]!);
  } catch (e) {
    // The YAML starts on line 2 of the file, after the opening fence.
    if (e instanceof DataFileError && e.line != null) throw new DataFileError(file, e.line + 1, e.column, e.problem, e.fix);
    throw e;
  }
  if (meta.name !== dirName) {
    const line = fence[1]!.split('\n').findIndex((l) => /^name\s*:/.test(l));
    throw new DataFileError(file, line >= 0 ? line + 2 : null, 1, `name '${meta.name}' does not match its directory '${dirName}'`, 'rename one of them');
  }
  const body = text.slice(fence[0].length).trim();
  if (!body) throw new DataFileError(file, null, null, 'SKILL.md has no body after its front matter');
  const declared = meta.version ?? meta.metadata?.version;
  const version = declared != null ? String(declared) : `sha256:${createHash('sha256').update(text).digest('hex').slice(0, 12)}`;
  return createSkill({ name: meta.name, description: meta.description, body, source, version });
}
