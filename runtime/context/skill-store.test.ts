import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../core/logger.ts';
import { DataFileError } from '../core/yaml-document.ts';
import { parseSkillFile } from './skill-file.ts';
import { createSkillStore, loadSkillStore } from './skill-store.ts';
import { createSkill } from './skill.ts';
import { createWorkspace, skillMarkdown } from './test-support/sim-session.ts';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));
function workspace(files: Record<string, string>) {
  const ws = createWorkspace(files);
  cleanups.push(ws.cleanup);
  return ws;
}

describe('parseSkillFile', () => {
  it('reads name, description and body, and builds the block skill_load returns', () => {
    const s = parseSkillFile('SKILL.md', skillMarkdown('pdf-tools', 'Work with PDFs.', '## Steps\n\nRun pdftotext.'), 'pdf-tools', 'workspace');
    expect(s).toMatchObject({ name: 'pdf-tools', description: 'Work with PDFs.', body: '## Steps\n\nRun pdftotext.', source: 'workspace' });
    expect(s.block).toBe('# Skill: pdf-tools (source: workspace)\n\n## Steps\n\nRun pdftotext.');
    expect(s.size_tokens).toBe(Math.ceil(s.block.length / 4));
  });

  it('takes version from front matter or metadata, else a content hash that changes with the file', () => {
    const v = (fm: string, body = 'b') => parseSkillFile('f', `---\nname: x\ndescription: d\n${fm}---\n${body}\n`, 'x', 'workspace').version;
    expect(v('version: 1.2\n')).toBe('1.2');
    expect(v('metadata:\n  version: "2.0.1"\n')).toBe('2.0.1');
    expect(v('')).toMatch(/^sha256:[0-9a-f]{12}$/);
    expect(v('', 'other body')).not.toBe(v(''));
  });

  it.each([
    ['no front matter', '# just markdown\n', /1:1: SKILL.md must start with YAML front matter/],
    ['a missing description', '---\nname: x\n---\nbody\n', /must have required property 'description'/],
    ['a name that is not kebab-case', '---\nname: Bad_Name\ndescription: d\n---\nbody\n', /:2:\d+: \/name: must match pattern/],
    ['a name unlike its directory', '---\ndescription: d\nname: y\n---\nbody\n', /:3:1: name 'y' does not match its directory 'x'/],
    ['an empty body', '---\nname: x\ndescription: d\n---\n\n', /has no body/],
    ['malformed YAML', '---\nname: [x\ndescription: d\n---\nbody\n', /malformed YAML/],
  ])('rejects %s with a located DataFileError', (_label, text, message) => {
    let err: unknown;
    try {
      parseSkillFile('.metis/skills/x/SKILL.md', text, 'x', 'workspace');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DataFileError);
    expect((err as Error).message).toMatch(message);
  });
});

describe('loadSkillStore', () => {
  it('reads .metis/skills/<name>/SKILL.md in name order and skips a broken one with a WARN naming the file', () => {
    const ws = workspace({
      '.metis/skills/zeta/SKILL.md': skillMarkdown('zeta', 'Last.', 'z'),
      '.metis/skills/alpha/SKILL.md': skillMarkdown('alpha', 'First.', 'a'),
      '.metis/skills/broken/SKILL.md': '---\nname: broken\n---\nno description\n',
      '.metis/skills/empty-dir/.keep': '',
    });
    const logger = createMemoryLogger();
    const store = loadSkillStore({ workspaceRoot: ws.root, logger });
    expect(store.skills.map((s) => s.name)).toEqual(['alpha', 'zeta']);
    expect(logger.records).toEqual([expect.objectContaining({ level: 'warn', msg: 'skill skipped', fields: expect.objectContaining({ file: join('.metis', 'skills', 'broken', 'SKILL.md') }) })]);
  });

  it('is empty for a workspace without skills', () => {
    expect(loadSkillStore({ workspaceRoot: workspace({}).root, logger: createMemoryLogger() }).skills).toEqual([]);
  });

  it('refuses a skill directory that is a symlink leading out of the workspace', () => {
    const outside = workspace({ 'evil/SKILL.md': skillMarkdown('evil', 'Outside.', 'secret') });
    const ws = workspace({ '.metis/skills/good/SKILL.md': skillMarkdown('good', 'Inside.', 'ok') });
    symlinkSync(join(outside.root, 'evil'), join(ws.root, '.metis', 'skills', 'evil'));
    const logger = createMemoryLogger();
    const store = loadSkillStore({ workspaceRoot: ws.root, logger });
    expect(store.skills.map((s) => s.name)).toEqual(['good']);
    expect(String(logger.records[0]?.fields?.error)).toMatch(/outside the workspace/);
  });

  it('reads the files once: a skill written after loading is not seen (the stable prefix must not move)', () => {
    const ws = workspace({ '.metis/skills/a/SKILL.md': skillMarkdown('a', 'A.', 'a') });
    const store = loadSkillStore({ workspaceRoot: ws.root, logger: createMemoryLogger() });
    mkdirSync(join(ws.root, '.metis', 'skills', 'b'));
    writeFileSync(join(ws.root, '.metis', 'skills', 'b', 'SKILL.md'), skillMarkdown('b', 'B.', 'b'));
    expect(store.skills.map((s) => s.name)).toEqual(['a']);
  });
});

describe('SkillStore.search', () => {
  const store = createSkillStore(
    [
      ['sql-migrations', 'Write and check SQL schema migrations.'],
      ['pdf-tools', 'Extract text from PDF files.'],
      ['sql-style', 'House style for SQL queries.'],
    ].map(([name, description]) => createSkill({ name: name!, description: description!, body: 'b', source: 'workspace', version: '1' })),
  );

  it('matches every word of the query in name or description, case-insensitively, in name order', () => {
    expect(store.search('sql').map((s) => s.name)).toEqual(['sql-migrations', 'sql-style']);
    expect(store.search('SQL  schema').map((s) => s.name)).toEqual(['sql-migrations']);
    expect(store.search('pdf text').map((s) => s.name)).toEqual(['pdf-tools']);
    expect(store.search('kubernetes')).toEqual([]);
    expect(store.search('   ')).toEqual([]);
  });

  it('looks skills up by exact name', () => {
    expect(store.get('pdf-tools')?.description).toBe('Extract text from PDF files.');
    expect(store.get('PDF-tools')).toBeUndefined();
  });
});
