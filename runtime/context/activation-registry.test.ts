import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createMemoryLogger } from '../core/logger.ts';
import { createSkillActivationRegistry, DEFAULT_ACTIVATION_LIMITS } from './activation-registry.ts';

const make = () => {
  const logger = createMemoryLogger();
  return { logger, registry: createSkillActivationRegistry({ logger, session_id: 'sess_1' }) };
};

describe('skill activation registry (context-assembler.md §5.2.4)', () => {
  it('has the spec defaults: 3 activations, warn at 10,000 tokens, hard cap 30,000', () => {
    expect(DEFAULT_ACTIVATION_LIMITS).toEqual({ maxActivations: 3, warnTokens: 10_000, hardCapTokens: 30_000 });
  });

  it('refuses the 4th distinct activation with a message naming the limit and what is loaded', () => {
    const { registry } = make();
    for (const n of ['a', 'b', 'c']) expect(registry.request(n, 100).kind).toBe('activated');
    const d = registry.request('d', 100);
    expect(d).toMatchObject({ kind: 'refused', cap: 'activations' });
    expect(d.kind === 'refused' && d.message).toBe(
      'activation budget exhausted: 3 skills already activated this session (limit 3 activations per session). Already loaded: [a, b, c]. To free budget, summarize and discard previously loaded skill bodies in your next response.',
    );
    expect(registry.activated()).toEqual(['a', 'b', 'c']);
  });

  it('refuses an activation that would pass the hard cap, whatever the count, and records nothing for it', () => {
    const { registry } = make();
    expect(registry.request('a', 20_000).kind).toBe('activated');
    const b = registry.request('b', 10_001);
    expect(b).toMatchObject({ kind: 'refused', cap: 'tokens' });
    expect(b.kind === 'refused' && b.message).toContain("loading 'b' (10001 tokens) would bring this session's skill activations to 30001 tokens (hard cap 30000 tokens)");
    expect(registry.cumulativeTokens()).toBe(20_000);
    // Exactly at the cap is allowed.
    expect(registry.request('c', 10_000).kind).toBe('activated');
    expect(registry.cumulativeTokens()).toBe(30_000);
  });

  it('logs one WARN when the cumulative tokens reach 10,000, and no more after', () => {
    const { registry, logger } = make();
    registry.request('a', 6_000);
    expect(logger.records).toEqual([]);
    registry.request('b', 4_000);
    registry.request('c', 5_000);
    expect(logger.records).toEqual([
      { level: 'warn', msg: 'skill activations passed the warning threshold', fields: { session_id: 'sess_1', cumulative_tokens: 10_000, warn_tokens: 10_000, hard_cap_tokens: 30_000, activated: ['a', 'b'] } },
    ]);
  });

  it('answers a pre-activated or already-loaded skill with a pointer that uses no budget', () => {
    const { registry } = make();
    registry.preactivate('pre');
    expect(registry.isPreloaded('pre')).toBe(true);
    expect(registry.request('pre', 50_000)).toEqual({ kind: 'already_preloaded' });
    expect(registry.request('a', 100).kind).toBe('activated');
    expect(registry.request('a', 100)).toEqual({ kind: 'already_activated' });
    expect([registry.activated(), registry.cumulativeTokens()]).toEqual([['a'], 100]);
  });

  it('never holds more than 3 activations or more than 30,000 tokens, whatever the requests (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), fc.integer({ min: 0, max: 25_000 })), { maxLength: 30 }), (reqs) => {
        const { registry, logger } = make();
        for (const [name, size] of reqs) registry.request(name, size);
        expect(registry.activated().length).toBeLessThanOrEqual(3);
        expect(new Set(registry.activated()).size).toBe(registry.activated().length);
        expect(registry.cumulativeTokens()).toBeLessThanOrEqual(30_000);
        expect(logger.records.length).toBe(registry.cumulativeTokens() >= 10_000 ? 1 : 0);
      }),
    );
  });
});
