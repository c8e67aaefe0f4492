import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../core/logger.ts';
import { createSkill, createSkillActivationRegistry, createSkillStore } from '../../context/index.ts';
import { runTool } from '../test-support/run-tool.ts';
import { createSkillSearchTool } from './skill-search.ts';

describe('skill_search', () => {
  const skills = createSkillStore(
    ['csv-import: Import CSV files safely.', 'csv-export: Write CSV reports.', 'logging: Structured logs.'].map((line) => {
      const [name, description] = line.split(': ');
      return createSkill({ name: name!, description: description!, body: 'b', source: 'workspace', version: '1' });
    }),
  );
  const registry = createSkillActivationRegistry({ logger: createMemoryLogger() });
  registry.preactivate('csv-import');
  const tool = createSkillSearchTool({ skills, registry });

  it('lists each match on one line, marking preloaded ones', async () => {
    expect((await runTool(tool, { query: 'CSV' }, '/unused')).content).toBe('2 skills match "CSV":\n- csv-export: Write CSV reports.\n- csv-import [preloaded]: Import CSV files safely.');
    expect((await runTool(tool, { query: 'logs' }, '/unused')).content).toBe('1 skill matches "logs":\n- logging: Structured logs.');
  });

  it('says so when nothing matches', async () => {
    expect((await runTool(tool, { query: 'yaml' }, '/unused')).content).toBe('no skill matches "yaml"; 3 skills are listed in the system prompt');
  });
});
