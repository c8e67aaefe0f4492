import { afterEach, describe, expect, it } from 'vitest';
import { createVirtualClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { eventCatalog } from '../events/index.ts';
import { builtinTools, createToolDispatcher, type DispatchContext, type ToolDispatcher } from '../tools/index.ts';
import { createRecordingBus, type RecordingBus } from '../tools/test-support/recording-bus.ts';
import { createContextAssembler, type ContextAssemblerOptions } from './context-assembler.ts';
import { createWorkspace, skillMarkdown } from './test-support/sim-session.ts';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function setup(files: Record<string, string>, extra: Partial<ContextAssemblerOptions> = {}) {
  const ws = createWorkspace(files);
  cleanups.push(ws.cleanup);
  const bus: RecordingBus = createRecordingBus();
  const logger = createMemoryLogger();
  const clock = createVirtualClock(0);
  const shared: ToolDispatcher = createToolDispatcher({ tools: builtinTools(), bus, logger, clock });
  const ctx = createContextAssembler({ workspaceRoot: ws.root, session_id: 'sess_1', parent_event_id: 'ev_created', tools: shared, bus, logger, clock, ...extra });
  const call = (name: string, input: Record<string, unknown>, id = `tu_${name}`) => {
    const dc: DispatchContext = { workspaceRoot: ws.root, session_id: 'sess_1', turn_id: 'turn_1', parent_event_id: 'ev_llm' };
    return ctx.tools.dispatch({ type: 'tool_use', id, name, input }, dc);
  };
  return { ws, bus, logger, shared, ctx, call };
}

const SKILLS = {
  '.metis/skills/sql-style/SKILL.md': skillMarkdown('sql-style', 'House style for SQL queries.', 'Upper-case keywords.'),
  '.metis/skills/huge-guide/SKILL.md': skillMarkdown('huge-guide', 'A long guide to SQL migrations.', 'step '.repeat(6_000)),
};

describe('createContextAssembler', () => {
  it('without skills: the shared tools unchanged, no skill tools, no skill events', () => {
    const { ctx, shared, bus } = setup({});
    expect(ctx.tools).toBe(shared);
    expect(ctx.tools.specs().map((t) => t.name)).not.toContain('skill_load');
    expect(ctx.stable.text).not.toContain('## Skills');
    expect(bus.ofType('skill.loaded')).toEqual([]);
  });

  it('with skills: offers skill_load and skill_search among the tools, sorted by name, and lists every skill', () => {
    const { ctx } = setup(SKILLS);
    const names = ctx.tools.specs().map((t) => t.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(['skill_load', 'skill_search', 'read_file']));
    expect(ctx.stable.text).toContain('- huge-guide: A long guide to SQL migrations.');
    expect(ctx.stable.text).toContain('- sql-style [preloaded]: House style for SQL queries.');
  });

  it('emits one skill.loaded (always) per preloaded body, parented on session.created, valid against the catalog', () => {
    const { bus, ctx } = setup(SKILLS);
    expect(ctx.stable.preloaded.map((s) => s.name)).toEqual(['sql-style']);
    const events = bus.ofType('skill.loaded');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ session_id: 'sess_1', turn_id: null, parent_event_id: 'ev_created', actor: 'system' });
    expect(events[0]!.payload).toEqual({
      skill_id: 'sql-style',
      skill_version: expect.stringMatching(/^sha256:/),
      load_reason: 'always',
      load_size_tokens: ctx.skills.get('sql-style')!.size_tokens,
      source: 'workspace',
      triggered_by_tool_use_id: null,
    });
    expect(eventCatalog().validator('skill.loaded')!(events[0]!.payload)).toBe(true);
  });

  it('skill_load returns the body and emits skill.loaded (on_demand) in the calling turn; a second load is a pointer with no event', async () => {
    const { bus, call, ctx } = setup(SKILLS);
    const first = await call('skill_load', { name: 'huge-guide' }, 'tu_1');
    expect(first.failed).toBe(false);
    expect(first.result.content).toBe(ctx.skills.get('huge-guide')!.block);
    const onDemand = bus.ofType('skill.loaded').filter((e) => e.payload.load_reason === 'on_demand');
    expect(onDemand).toHaveLength(1);
    expect(onDemand[0]).toMatchObject({ session_id: 'sess_1', turn_id: 'turn_1', parent_event_id: 'ev_llm' });
    expect(onDemand[0]!.payload).toMatchObject({ skill_id: 'huge-guide', triggered_by_tool_use_id: 'tu_1' });
    expect(eventCatalog().validator('skill.loaded')!(onDemand[0]!.payload)).toBe(true);

    const again = await call('skill_load', { name: 'huge-guide' }, 'tu_2');
    expect(again.result.content).toContain('already loaded earlier in this session');
    expect(bus.ofType('skill.loaded')).toHaveLength(2); // the always one and the first on_demand
    expect(ctx.registry.activated()).toEqual(['huge-guide']);
  });

  it('skill_load of a preloaded skill points at the system prompt section and spends no budget', async () => {
    const { call, ctx, bus } = setup(SKILLS);
    const r = await call('skill_load', { name: 'sql-style' });
    expect(r.result.content).toBe(
      '# Skill: sql-style (source: workspace)\n\nThis skill\'s body is already loaded in the system prompt (pre-activated\nat session start). Re-read the system prompt section "# Skill: sql-style"\nfor its operating instructions.',
    );
    expect(ctx.stable.text).toContain('# Skill: sql-style');
    expect(ctx.registry.activated()).toEqual([]);
    expect(bus.ofType('skill.loaded')).toHaveLength(1);
  });

  it('skill_load of an unknown skill fails as tool.failed (not_found) listing the skills', async () => {
    const { call, bus } = setup(SKILLS);
    const r = await call('skill_load', { name: 'nope' });
    expect(r.failed).toBe(true);
    expect(bus.ofType('tool.failed')[0]!.payload).toMatchObject({ error_class: 'not_found', error_message: "no skill named 'nope'; available: huge-guide, sql-style" });
  });

  it('skill_search lists matches with the [preloaded] mark', async () => {
    const { call } = setup(SKILLS);
    expect((await call('skill_search', { query: 'sql' })).result.content).toBe(
      '2 skills match "sql":\n- huge-guide: A long guide to SQL migrations.\n- sql-style [preloaded]: House style for SQL queries.',
    );
    expect((await call('skill_search', { query: 'docker' })).result.content).toBe('no skill matches "docker"; 2 skills are listed in the system prompt');
  });

  it('a worker not allowed the skill tools gets no index and preloads nothing', () => {
    const { ctx, bus } = setup(SKILLS, { allowedTools: new Set(['read_file', 'list_files']) });
    expect(ctx.stable.text).not.toContain('## Skills');
    expect(ctx.stable.preloaded).toEqual([]);
    expect(bus.ofType('skill.loaded')).toEqual([]);
  });

  it('the volatile segment re-reads NOTES.md, USER.md and MEMORY.md on every call; the stable one never moves', () => {
    const { ctx, ws } = setup({});
    expect(ctx.segments().system_volatile).toBeNull();
    ws.write('.metis/NOTES.md', 'note one');
    ws.write('MEMORY.md', 'remember this');
    const a = ctx.segments();
    expect(a.system_volatile).toBe('## .metis/NOTES.md\n\nnote one\n\n## MEMORY.md\n\nremember this');
    ws.write('.metis/NOTES.md', 'note two');
    const b = ctx.segments();
    expect(b.system_volatile).toContain('note two');
    expect(b.system).toBe(a.system);
  });

  it('a caller persona replaces the default; a long one is not padded', () => {
    const persona = `Custom persona.\n\n${'Rule. '.repeat(4_000)}`;
    const { ctx } = setup({}, { persona });
    expect(ctx.stable.text).toBe(persona.trimEnd());
  });
});
