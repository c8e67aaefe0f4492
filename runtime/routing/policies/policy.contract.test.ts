// The contract every routing policy meets; each of the seven runs the same suite.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { RouteContext } from '../route-context.ts';
import { POLICY_NAMES } from '../route-decision.ts';
import type { RoutingPolicy } from '../routing-policy.ts';
import { fakeRecommender, HAIKU, OPUS, routeContext, SONNET } from '../test-support/route-fixtures.ts';
import { createPolicyChain } from './index.ts';

const chain = createPolicyChain({ rules: [{ name: 'py', model: OPUS, match: { file_extensions: ['.py'] } }] });

/** For each policy, a context in which it (and only its own input) applies. */
const applies: Record<string, Partial<RouteContext>> = {
  per_message_override: { override_model: OPUS },
  manual_sticky: { sticky_model: OPUS },
  rule: { file_extensions: ['PY'] },
  pattern: { recommender: fakeRecommender({ model: OPUS, confidence: 0.4, alternatives: [{ model: OPUS, score: 0.9, sample_size: 7 }] }) },
  delegate_request: { delegate_tier: 'deep' },
  workspace_default: { workspace_default_model: OPUS },
  global_default: { global_default_model: OPUS },
};

const modelArb = fc.constantFrom(null, HAIKU, SONNET, OPUS);
const ctxArb: fc.Arbitrary<RouteContext> = fc
  .record({
    override_model: modelArb,
    sticky_model: modelArb,
    workspace_default_model: modelArb,
    global_default_model: modelArb,
    user_message: fc.string(),
    file_extensions: fc.array(fc.constantFrom('.py', '.ts', '.md')),
    delegate_tier: fc.constantFrom(null, 'fast' as const, 'balanced' as const, 'deep' as const),
    rec: fc.option(fc.record({ model: fc.constantFrom(HAIKU, SONNET), confidence: fc.double({ min: 0, max: 1, noNaN: true }) })),
  })
  .map(({ rec, ...c }) =>
    routeContext({ ...c, recommender: fakeRecommender(rec ? { ...rec, alternatives: [{ model: rec.model, score: 0.8, sample_size: 5 }] } : null) }),
  );

/** Freezes the context's own data; the recommender is a service with its own state, left alone. */
function freezeContext(ctx: RouteContext): RouteContext {
  Object.freeze(ctx.intent_tags);
  Object.freeze(ctx.file_extensions);
  Object.freeze(ctx.tiers);
  return Object.freeze(ctx);
}

describe.each(chain.map((p, i) => [POLICY_NAMES[i]!, p] as [string, RoutingPolicy]))('routing policy contract: %s', (name, policy) => {
  it('has its slot name and sits at its slot in the chain', () => {
    expect(policy.name).toBe(name);
  });

  it('abstains on a turn that gives it nothing to go on', () => {
    const p = policy.evaluate(routeContext());
    expect(p.verdict).toBe('not_applicable');
    expect(p.reason.length).toBeGreaterThan(0);
  });

  it('chooses a model, with a reason, when its input is present', () => {
    const p = policy.evaluate(routeContext(applies[name]));
    expect(p).toMatchObject({ verdict: 'chose', candidate_model: OPUS });
    expect(p.reason.length).toBeGreaterThan(0);
  });

  it('answers chose-with-a-model or not_applicable, deterministically, without touching the context', () => {
    fc.assert(
      fc.property(ctxArb, (ctx) => {
        const frozen = freezeContext(ctx);
        const a = policy.evaluate(frozen);
        const b = policy.evaluate(frozen);
        expect(a).toEqual(b);
        expect(['chose', 'not_applicable']).toContain(a.verdict);
        if (a.verdict === 'chose') expect(a.candidate_model).toMatch(/\S/);
        else expect(a.reason).not.toMatch(/error/);
      }),
      { numRuns: 100 },
    );
  });
});
