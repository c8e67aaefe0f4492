import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../types/content.ts';
import { contextBudget, elidedMarker, fitToolResults } from './context-fit.ts';
import { estimateTokens } from './estimate-tokens.ts';

const ELIDED = '[tool result elided:';
const block = fc.oneof(
  fc.string({ maxLength: 400 }).map((text) => ({ type: 'text' as const, text })),
  fc.string({ maxLength: 4_000 }).map((content) => ({
    type: 'tool_result' as const,
    tool_use_id: 'tu_1',
    content,
    is_error: false,
  })),
);
const messages = fc.array(
  fc.array(block, { minLength: 1, maxLength: 5 }).map((content): Message => ({ role: 'user', content })),
  { maxLength: 8 },
);

describe('fitToolResults', () => {
  it('leaves the request within budget, or with every tool result already at its marker; text is never touched', () => {
    fc.assert(
      fc.property(messages, fc.integer({ min: 0, max: 5_000 }), (msgs, budget) => {
        const texts = msgs.flatMap((m) => m.content.filter((b) => b.type === 'text'));
        const request = {
          system: 'sys',
          system_volatile: null,
          tools: [],
          messages: msgs,
        };
        const before = estimateTokens(request);
        const elided = fitToolResults(request, budget);
        const after = estimateTokens(request);
        expect(after).toBeLessThanOrEqual(before);
        if (before <= budget) expect(elided).toBe(0);
        if (after > budget) {
          for (const m of msgs)
            for (const b of m.content)
              if (b.type === 'tool_result') expect(b.content.startsWith(ELIDED) || elidedMarker(b.content.length).length >= b.content.length).toBe(true);
        }
        expect(msgs.flatMap((m) => m.content.filter((b) => b.type === 'text'))).toEqual(texts);
        // Idempotent: a second pass finds nothing more to do once within budget.
        if (after <= budget) expect(fitToolResults(request, budget)).toBe(0);
      }),
    );
  });

  it('elides the oldest tool results first, keeping the newest', () => {
    const msgs: Message[] = [0, 1, 2].map((i) => ({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: `tu_${i}`,
          content: String(i).repeat(4_000),
          is_error: false,
        },
      ],
    }));
    const n = fitToolResults({ system: null, system_volatile: null, tools: [], messages: msgs }, 1_500);
    expect(n).toBe(2);
    const contents = msgs.map((m) => (m.content[0]!.type === 'tool_result' ? m.content[0]!.content : ''));
    expect(contents[0]).toMatch(/^\[tool result elided: 4000 characters/);
    expect(contents[1]).toMatch(/^\[tool result elided/);
    expect(contents[2]).toBe('2'.repeat(4_000));
  });

  it('budgets 90% of the window less the answer, which never takes more than a quarter', () => {
    expect(contextBudget(200_000, 8_192)).toBe(180_000 - 8_192);
    expect(contextBudget(8_000, 64_000)).toBe(7_200 - 2_000);
    expect(contextBudget(1_000, -5)).toBe(900);
  });
});
