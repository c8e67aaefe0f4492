import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../core/logger.ts';
import { createSkill, createSkillActivationRegistry, createSkillStore, type Skill } from '../../context/index.ts';
import { toolErrorOf } from '../test-support/run-tool.ts';
import { createSkillLoadTool } from './skill-load.ts';

const skill = (name: string, bodyChars: number) => createSkill({ name, description: `${name} skill`, body: 'x'.repeat(bodyChars), source: 'workspace', version: '1' });

function setup(skills: Skill[], limits = {}) {
  const loaded: { name: string; tool_use_id: string | undefined }[] = [];
  const registry = createSkillActivationRegistry({ logger: createMemoryLogger(), limits });
  const tool = createSkillLoadTool({ skills: createSkillStore(skills), registry, onLoaded: (s, call) => loaded.push({ name: s.name, tool_use_id: call?.tool_use_id }) });
  const run = (name: string, tool_use_id = 'tu_1') => tool.run({ name }, { workspaceRoot: '/unused', logger: createMemoryLogger(), call: { tool_use_id, llm_event_id: 'ev' } });
  return { tool, registry, loaded, run };
}

describe('skill_load', () => {
  it('returns the skill block and reports the load once', async () => {
    const s = skill('alpha', 40);
    const { run, loaded } = setup([s]);
    expect((await run('alpha')).content).toBe(s.block);
    expect(loaded).toEqual([{ name: 'alpha', tool_use_id: 'tu_1' }]);
  });

  it('fails with execution_error naming the cap once the budget is spent, without reporting a load', async () => {
    const { run, loaded } = setup([skill('a', 400), skill('b', 400)], { maxActivations: 1 });
    await run('a');
    const err = await toolErrorOf(run('b'));
    expect(err.errorClass).toBe('execution_error');
    expect(err.message).toContain('(limit 1 activations per session)');
    expect(loaded.map((l) => l.name)).toEqual(['a']);
  });

  it('fails with not_found for a name it does not know', async () => {
    const err = await toolErrorOf(setup([skill('a', 4)]).run('b'));
    expect([err.errorClass, err.message]).toEqual(['not_found', "no skill named 'b'; available: a"]);
  });

  it('declares a name-only input schema', () => {
    expect(setup([]).tool.input_schema).toMatchObject({ required: ['name'], additionalProperties: false });
  });
});
