import { afterEach, describe, expect, it } from 'vitest';
import { eventCatalog, type BusEvent } from '../../runtime/events/index.ts';
import { MAX_CACHEABLE_PREFIX_TOKENS, MIN_CACHEABLE_PREFIX_TOKENS } from '../../runtime/context/index.ts';
import { createTiktokenCounter, serializeRequest } from '../../runtime/providers/sim/index.ts';
import { estimateTokens } from '../../runtime/sessions/index.ts';
import type { CanonicalRequest } from '../../runtime/types/request.ts';
import { createSimSession, createWorkspace, skillMarkdown } from '../../runtime/context/test-support/sim-session.ts';

const HAIKU_FLOOR = 4096;
const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function workspace(files: Record<string, string> = {}) {
  const ws = createWorkspace({ 'README.md': '# demo\n', ...files });
  cleanups.push(ws.cleanup);
  return ws;
}

/** The cached prefix exactly as sent: tools then the stable system segment. */
const stablePrefix = (r: CanonicalRequest) => JSON.stringify({ tools: r.tools, system: r.system });

/** o200k tokens of tools + stable system, as the simulated provider counts them for the cache floor. */
function simPrefixTokens(r: CanonicalRequest): number {
  const counter = createTiktokenCounter();
  const wire = serializeRequest(r, 'anthropic');
  return wire.segments.slice(0, wire.breakpoints.at(-1)).reduce((n, s) => n + counter.count(s.text), 0);
}

const byType = (events: BusEvent[], type: string) => events.filter((e) => e.type === type);

describe('context assembler on the simulated provider (context-assembler.md §5.1 smoke)', () => {
  it('natural prompt, no skills, haiku: turn 2 reads the prefix turn 1 wrote, and the prefix is byte-identical', async () => {
    const ws = workspace();
    const f = createSimSession({ workspaceRoot: ws.root, turns: [[[{ tool: 'list_files', input: { path: '.' } }]], [[{ tool: 'read_file', input: { path: 'README.md' } }]]] });
    const t1 = await f.session.submitTurn('Look around.');
    ws.write('.metis/NOTES.md', 'turn 1: looked around');
    const t2 = await f.session.submitTurn('Read the readme.');
    expect([t1.error, t2.error]).toEqual([null, null]);

    const events = await f.events();
    const calls = byType(events, 'llm.call_completed');
    const firstOf = (turn: string) => calls.find((e) => e.turn_id === turn)!.payload as Record<string, number>;
    const turn1 = firstOf(t1.turn_id);
    const turn2 = firstOf(t2.turn_id);
    expect(turn1.cache_creation_input_tokens).toBeGreaterThan(HAIKU_FLOOR);
    expect(turn2.cached_input_tokens).toBeGreaterThan(HAIKU_FLOOR);
    expect(turn2.cache_creation_input_tokens).toBe(0);

    // Byte-stable across every call of both turns, though NOTES.md (volatile) changed in between.
    expect(f.requests.length).toBe(4);
    expect(new Set(f.requests.map(stablePrefix)).size).toBe(1);
    expect(f.requests[0]!.system_volatile).toBeNull();
    expect(f.requests[2]!.system_volatile).toContain('turn 1: looked around');

    // Padded into the heuristic band, and over haiku's floor as the sim's o200k tokenizer counts it.
    const r = f.requests[0]!;
    const heuristic = estimateTokens({ system: r.system, system_volatile: null, tools: r.tools, messages: [] });
    expect(heuristic).toBeGreaterThanOrEqual(MIN_CACHEABLE_PREFIX_TOKENS);
    expect(heuristic).toBeLessThanOrEqual(MAX_CACHEABLE_PREFIX_TOKENS);
    expect(simPrefixTokens(r)).toBeGreaterThan(HAIKU_FLOOR);
    expect(r.tools.map((t) => t.name)).not.toContain('skill_load');
    expect(byType(events, 'skill.loaded')).toEqual([]);
  });

  it('preloads small skills as padding: skill.loaded (always) after session.created, [preloaded] in the index, skill_load answers with a pointer', async () => {
    const ws = workspace({
      '.metis/skills/commit-style/SKILL.md': skillMarkdown('commit-style', 'How to write commit messages here.', 'Use the imperative mood. Keep the subject under 60 characters.'),
      '.metis/skills/py-tests/SKILL.md': skillMarkdown('py-tests', 'Run and extend the Python tests.', 'Run `python run_tests.py`; add a test per fixed bug.'),
    });
    const f = createSimSession({ workspaceRoot: ws.root, turns: [[[{ tool: 'skill_load', input: { name: 'py-tests' } }]], [[{ tool: 'list_files', input: { path: '.' } }]]] });
    await f.session.submitTurn('Fix the bug.');
    await f.session.submitTurn('And again.');
    const events = await f.events();

    const loaded = byType(events, 'skill.loaded');
    expect(loaded.map((e) => [e.payload.skill_id, e.payload.load_reason, e.turn_id, e.payload.triggered_by_tool_use_id])).toEqual([
      ['commit-style', 'always', null, null],
      ['py-tests', 'always', null, null],
    ]);
    const created = byType(events, 'session.created')[0]!;
    expect(loaded.every((e) => e.parent_event_id === created.id)).toBe(true);
    expect(events.indexOf(loaded[1]!)).toBeLessThan(events.findIndex((e) => e.type === 'turn.started'));

    const system = f.requests[0]!.system!;
    expect(system).toContain('- commit-style [preloaded]: How to write commit messages here.');
    expect(system).toContain('# Skill: py-tests (source: workspace)\n\nRun `python run_tests.py`');
    // Skill bodies come before the operating-context block.
    expect(system.indexOf('# Skill: py-tests')).toBeLessThan(system.indexOf('## Operating context'));
    expect(f.requests[0]!.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['skill_load', 'skill_search']));

    const result = f.requests[1]!.messages.at(-1)!.content[0]!;
    expect(result).toMatchObject({ type: 'tool_result', is_error: false });
    expect(result.type === 'tool_result' && result.content).toContain('already loaded in the system prompt');
    // §5.2.2: the pointer's metadata says so, and no second skill.loaded fires (checked above: two, both `always`).
    expect(byType(events, 'tool.completed').map((e) => e.payload.metadata)).toContainEqual({ already_preloaded: true });
    expect(new Set(f.requests.map(stablePrefix)).size).toBe(1);
    for (const e of loaded) expect(eventCatalog().validator('skill.loaded')!(e.payload)).toBe(true);
  });

  it('is deterministic: the same workspace content in another directory gives the same prompts and token counts', async () => {
    const run = async () => {
      const ws = workspace({ '.metis/skills/tidy/SKILL.md': skillMarkdown('tidy', 'Tidy imports.', 'Sort imports; drop unused ones.') });
      const f = createSimSession({ workspaceRoot: ws.root, turns: [[[{ tool: 'list_files', input: { path: '.' } }]], [[{ tool: 'skill_search', input: { query: 'imports' } }]]] });
      await f.session.submitTurn('One.');
      await f.session.submitTurn('Two.');
      return { systems: f.requests.map((r) => [r.system, r.system_volatile]), usage: f.responses.map((r) => r.usage) };
    };
    const [a, b] = [await run(), await run()];
    expect(b).toEqual(a);
  });
});

describe('skill activation budget through the real dispatcher (context-assembler.md §5.2.3–4)', () => {
  /** A body of about `tokens` heuristic tokens: too big to be taken as padding. */
  const body = (tokens: number, word: string) => `${word} `.repeat(Math.ceil((tokens * 4) / (word.length + 1)));

  it('the 4th explicit activation fails as tool.failed naming the limit; the 10,000-token warning is logged', async () => {
    const files: Record<string, string> = {};
    for (const n of ['alpha', 'bravo', 'charlie', 'delta']) files[`.metis/skills/${n}/SKILL.md`] = skillMarkdown(n, `The ${n} procedure.`, body(4_600, n));
    const ws = workspace(files);
    const loads = ['alpha', 'bravo', 'charlie', 'delta'].map((name) => [{ tool: 'skill_load', input: { name } }]);
    const f = createSimSession({ workspaceRoot: ws.root, turns: [loads] });
    await f.session.submitTurn('Use every skill.');
    const events = await f.events();

    const loaded = byType(events, 'skill.loaded');
    expect(loaded.map((e) => [e.payload.skill_id, e.payload.load_reason])).toEqual([
      ['alpha', 'on_demand'],
      ['bravo', 'on_demand'],
      ['charlie', 'on_demand'],
    ]);
    const called = byType(events, 'tool.called');
    for (const [i, e] of loaded.entries()) {
      expect(e.payload.triggered_by_tool_use_id).toBe(called[i]!.payload.tool_use_id);
      expect(byType(events, 'llm.call_completed').some((c) => c.id === e.parent_event_id)).toBe(true);
      expect(e.turn_id).toBe(called[i]!.turn_id);
    }
    const failed = byType(events, 'tool.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.payload).toMatchObject({ tool_use_id: called[3]!.payload.tool_use_id, error_class: 'execution_error' });
    expect(String(failed[0]!.payload.error_message)).toMatch(/^activation budget exhausted: 3 skills already activated this session \(limit 3 activations per session\)\. Already loaded: \[alpha, bravo, charlie\]/);
    const warns = f.logger.records.filter((r) => r.level === 'warn' && r.msg.includes('warning threshold'));
    expect(warns).toHaveLength(1);
    expect(warns[0]!.fields).toMatchObject({ warn_tokens: 10_000, activated: ['alpha', 'bravo', 'charlie'] });
  });

  it('an activation that would pass 30,000 cumulative tokens fails as tool.failed naming the hard cap', async () => {
    const ws = workspace({
      '.metis/skills/big-a/SKILL.md': skillMarkdown('big-a', 'First big one.', body(12_000, 'aa')),
      '.metis/skills/big-b/SKILL.md': skillMarkdown('big-b', 'Second big one.', body(12_000, 'bb')),
      '.metis/skills/big-c/SKILL.md': skillMarkdown('big-c', 'Third big one.', body(8_000, 'cc')),
    });
    const loads = ['big-a', 'big-b', 'big-c'].map((name) => [{ tool: 'skill_load', input: { name } }]);
    const f = createSimSession({ workspaceRoot: ws.root, turns: [loads] });
    await f.session.submitTurn('Load them all.');
    const events = await f.events();
    expect(byType(events, 'skill.loaded').map((e) => e.payload.skill_id)).toEqual(['big-a', 'big-b']);
    const failed = byType(events, 'tool.failed');
    expect(failed).toHaveLength(1);
    expect(String(failed[0]!.payload.error_message)).toContain('(hard cap 30000 tokens)');
    expect(String(failed[0]!.payload.error_message)).toContain('Already loaded: [big-a, big-b]');
    // The model sees the refusal as an error tool_result.
    const last = f.requests.at(-1)!.messages.at(-1)!.content[0]!;
    expect(last).toMatchObject({ type: 'tool_result', is_error: true });
  });
});
