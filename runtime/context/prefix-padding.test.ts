import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { estimateTokens } from '../sessions/estimate-tokens.ts';
import { builtinTools } from '../tools/index.ts';
import { assembleSystemPrompt } from './system-prompt.ts';
import { padStablePrefix, PREFIX_TARGET } from './prefix-padding.ts';

const tools = builtinTools().map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema }));
const size = (system: string) => estimateTokens({ system, system_volatile: null, tools, messages: [] });

describe('minimum-cacheable-prefix padding (context-assembler.md §5.1)', () => {
  it('the natural prompt is padded toward the band (all the operating context when it cannot reach it), byte-identical every time', () => {
    const a = assembleSystemPrompt('/nonexistent-workspace', tools);
    const b = assembleSystemPrompt('/nonexistent-workspace', tools);
    expect(a.system).toBe(b.system);
    const n = size(a.system!);
    expect(n).toBeGreaterThan(4500);
    expect(n).toBeLessThanOrEqual(PREFIX_TARGET.max);
    expect(a.system).toContain('## Operating context');
    expect(a.system_volatile).toBeNull();
  });

  it('never passes the maximum, uses sources in order, and leaves a large base alone (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z ]{1,400}$/), { minLength: 1, maxLength: 60 }), fc.integer({ min: 0, max: 30000 }), (paras, baseLen) => {
        const base = 'b'.repeat(baseLen);
        const out = padStablePrefix({ base, tools, padding: [paras.join('\n\n')], target: PREFIX_TARGET });
        expect(out.startsWith(base)).toBe(true);
        if (size(base) >= PREFIX_TARGET.min) expect(out).toBe(base);
        else expect(size(out)).toBeLessThanOrEqual(PREFIX_TARGET.max);
      }),
    );
    const out = padStablePrefix({ base: 'x', tools: [], padding: ['SKILL BODY', 'OPERATING'], target: { min: 5, max: 100 } });
    expect(out.indexOf('SKILL BODY')).toBeLessThan(out.indexOf('OPERATING') === -1 ? Infinity : out.indexOf('OPERATING'));
  });
});
