import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../sessions/estimate-tokens.ts';
import { builtinTools } from '../tools/index.ts';
import type { ToolSpec } from '../types/request.ts';
import { OPERATING_CONTEXT_PATH, PERSONA_PATH } from './context-assembler.ts';
import { MAX_CACHEABLE_PREFIX_TOKENS, MIN_CACHEABLE_PREFIX_TOKENS } from './prefix-padding.ts';
import { createSkill, type Skill } from './skill.ts';
import { assembleStableSystem } from './stable-system.ts';

const persona = readFileSync(PERSONA_PATH, 'utf8');
const operatingContext = readFileSync(OPERATING_CONTEXT_PATH, 'utf8');
const tools: ToolSpec[] = builtinTools().map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema }));
const prefix = (system: string, t: readonly ToolSpec[] = tools) => estimateTokens({ system, system_volatile: null, tools: [...t], messages: [] });
const skill = (name: string, body: string, description = `About ${name}.`) => createSkill({ name, description, body, source: 'workspace', version: '1' });

describe('assembleStableSystem (context-assembler.md §2, §5.1, §5.2.2)', () => {
  it('pads the natural prompt into the band with the operating-context block, byte-identical every time', () => {
    const a = assembleStableSystem({ persona, tools, skills: [], operatingContext });
    const b = assembleStableSystem({ persona, tools, skills: [], operatingContext });
    expect(a.text).toBe(b.text);
    expect(a.text.startsWith(persona.trimEnd())).toBe(true);
    expect(a.text).toContain('## Operating context');
    expect(a.prefixTokens).toBe(prefix(a.text));
    expect(a.prefixTokens).toBeGreaterThanOrEqual(MIN_CACHEABLE_PREFIX_TOKENS);
    expect(a.prefixTokens).toBeLessThanOrEqual(MAX_CACHEABLE_PREFIX_TOKENS);
    expect(a.preloaded).toEqual([]);
    // Cut at a paragraph: what was appended is a leading run of the block's own paragraphs.
    expect(operatingContext.replace(/\s+/g, ' ')).toContain(a.text.slice(persona.trimEnd().length).replace(/\s+/g, ' ').trim());
  });

  it('the operating-context block clears the minimum alone, with no tools and no skills (§5.1)', () => {
    const r = assembleStableSystem({ persona, tools: [], skills: [], operatingContext });
    expect(r.prefixTokens).toBeGreaterThanOrEqual(MIN_CACHEABLE_PREFIX_TOKENS);
    expect(r.prefixTokens).toBeLessThanOrEqual(MAX_CACHEABLE_PREFIX_TOKENS);
  });

  it('uses skill bodies (name order) before the operating-context block and marks them [preloaded] in the index', () => {
    const skills = [skill('alpha', 'Alpha body.'), skill('beta', 'Beta body.')];
    const r = assembleStableSystem({ persona, tools, skills, operatingContext });
    expect(r.preloaded.map((s) => s.name)).toEqual(['alpha', 'beta']);
    expect(r.text).toContain('- alpha [preloaded]: About alpha.\n- beta [preloaded]: About beta.');
    const order = ['## Skills', '# Skill: alpha (source: workspace)\n\nAlpha body.', '# Skill: beta (source: workspace)\n\nBeta body.', '## Operating context'].map((s) => r.text.indexOf(s));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((x, y) => x - y)).toEqual(order);
    expect(r.prefixTokens).toBeLessThanOrEqual(MAX_CACHEABLE_PREFIX_TOKENS);
  });

  it('leaves a body that would pass the maximum in the index only, unmarked, and still pads with a smaller one', () => {
    const big = skill('aaa-big', 'word '.repeat(5_000));
    const small = skill('zzz-small', 'Small body.');
    const r = assembleStableSystem({ persona, tools, skills: [big, small], operatingContext });
    expect(r.preloaded.map((s) => s.name)).toEqual(['zzz-small']);
    expect(r.text).toContain('- aaa-big: About aaa-big.');
    expect(r.text).toContain('- zzz-small [preloaded]:');
    expect(r.text).not.toContain('# Skill: aaa-big');
  });

  it('pads nothing (and preloads nothing) when the natural prefix already reaches the minimum', () => {
    const long = `${persona}\n\n${'Project rule. '.repeat(1_400)}`;
    const r = assembleStableSystem({ persona: long, tools, skills: [skill('alpha', 'Alpha body.')], operatingContext });
    expect(r.preloaded).toEqual([]);
    expect(r.operatingContextUnits).toBe(0);
    expect(r.text).toContain('- alpha: About alpha.');
    expect(r.text).not.toContain('[preloaded]');
  });

  it('counts the tools: more tool schema means less padding', () => {
    const heavy = [...tools, { name: 'zz_heavy', description: 'x'.repeat(4_000), input_schema: { type: 'object' } }];
    const light = assembleStableSystem({ persona, tools, skills: [], operatingContext });
    const withHeavy = assembleStableSystem({ persona, tools: heavy, skills: [], operatingContext });
    expect(withHeavy.operatingContextUnits).toBeLessThan(light.operatingContextUnits);
    expect(withHeavy.prefixTokens).toBeLessThanOrEqual(MAX_CACHEABLE_PREFIX_TOKENS);
  });

  it('folds a multi-line description into one index line', () => {
    const s: Skill = createSkill({ name: 'multi', description: 'line one\n  line two', body: 'b', source: 'workspace', version: '1' });
    const r = assembleStableSystem({ persona: 'p', tools: [], skills: [s], operatingContext: '' });
    expect(r.text).toContain('- multi [preloaded]: line one line two');
  });
});
