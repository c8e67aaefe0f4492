import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { validatorFor, formatAjvErrors } from '../core/schemas.ts';
import { createCapabilityValidator } from './capability-validator.ts';
import { chosenWithout, decideRoute, NoRouteError } from './decide-route.ts';
import { createPolicyChain } from './policies/index.ts';
import type { PatternRecommendation, RouteContext } from './route-context.ts';
import { POLICY_NAMES, type RouteDecidedPayload } from './route-decision.ts';
import { fakeRecommender, fakeRegistry, HAIKU, OPUS, routeContext, SONNET, TINY } from './test-support/route-fixtures.ts';

const registry = fakeRegistry();
const validate = createCapabilityValidator(registry);
const policies = createPolicyChain({
  rules: [{ name: 'fast_for_commits', model: HAIKU, match: { intent_tags: ['commit'] } }],
});
const decide = (ctx: RouteContext) => decideRoute(ctx, policies, validate, { nowMs: () => 0 });
const verdicts = (d: RouteDecidedPayload) => Object.fromEntries(d.chain.map((e) => [e.policy, e.verdict]));
const sonnetRec: PatternRecommendation = {
  model: SONNET,
  confidence: 0.87,
  alternatives: [
    { model: SONNET, score: 0.9, sample_size: 12 },
    { model: HAIKU, score: 0.12, sample_size: 30 },
  ],
};

describe('decideRoute', () => {
  it('manual sticky beats the defaults, which are recorded as deferred', () => {
    const d = decide(routeContext({ sticky_model: OPUS, workspace_default_model: SONNET, global_default_model: HAIKU }));
    expect(d.chosen_model).toBe(OPUS);
    expect(d.winner_index).toBe(1);
    expect(verdicts(d)).toEqual({
      per_message_override: 'not_applicable',
      manual_sticky: 'chose',
      rule: 'not_applicable',
      pattern: 'not_applicable',
      delegate_request: 'not_applicable',
      workspace_default: 'deferred',
      global_default: 'deferred',
    });
    expect(d.chain[5]).toMatchObject({ candidate_model: SONNET, validation_failure: null });
  });

  it('a per-message override beats a sticky model', () => {
    const d = decide(routeContext({ override_model: HAIKU, sticky_model: OPUS }));
    expect(d).toMatchObject({ chosen_model: HAIKU, winner_index: 0 });
    expect(d.chain[1]!.verdict).toBe('deferred');
  });

  it('the workspace default beats the global default', () => {
    const d = decide(routeContext({ workspace_default_model: SONNET, global_default_model: HAIKU }));
    expect(d).toMatchObject({ chosen_model: SONNET, winner_index: 5 });
    expect(d.chain[6]).toMatchObject({ verdict: 'deferred', candidate_model: HAIKU });
  });

  it('a rule outranks the pattern store, whose recommendation is kept as deferred', () => {
    const d = decide(routeContext({ intent_tags: ['commit'], recommender: fakeRecommender(sonnetRec), global_default_model: HAIKU }));
    expect(d).toMatchObject({ chosen_model: HAIKU, winner_index: 2 });
    expect(d.chain[2]).toMatchObject({ verdict: 'chose', rule_name: 'fast_for_commits', candidate_model: HAIKU });
    expect(d.chain[3]).toEqual({
      policy: 'pattern',
      verdict: 'deferred',
      candidate_model: SONNET,
      reason: expect.any(String),
      rule_name: null,
      confidence: 0.87,
      pattern_alternatives: sonnetRec.alternatives,
      validation_failure: null,
    });
    // The slot-4 inversion metric reads the chain: without the rule, pattern would have chosen sonnet.
    expect(chosenWithout(d, 'rule')).toBe(SONNET);
    expect(chosenWithout(d, 'pattern')).toBe(HAIKU);
  });

  it('the pattern slot chooses when no earlier slot applies', () => {
    const d = decide(routeContext({ recommender: fakeRecommender(sonnetRec), global_default_model: HAIKU }));
    expect(d).toMatchObject({ chosen_model: SONNET, winner_index: 3 });
    expect(d.chain[3]!.confidence).toBe(0.87);
    expect(chosenWithout(d, 'pattern')).toBe(HAIKU);
  });

  it('without a pattern store, or when it fails, the pattern slot is not applicable', () => {
    const throwing = { recommend: () => { throw new Error('patterns.db is locked'); } };
    for (const recommender of [null, undefined, fakeRecommender(null), throwing]) {
      const d = decide(routeContext({ recommender, global_default_model: HAIKU }));
      expect(d.chain[3]).toMatchObject({ verdict: 'not_applicable', candidate_model: null, confidence: null, pattern_alternatives: null });
      expect(d.chosen_model).toBe(HAIKU);
    }
    expect(decide(routeContext({ recommender: throwing, global_default_model: HAIKU })).chain[3]!.reason).toMatch(/patterns\.db is locked/);
  });

  it('a model failing validation is rejected with its reason and the chain moves on', () => {
    const d = decide(routeContext({ sticky_model: TINY, tools_offered: true, workspace_default_model: SONNET, global_default_model: HAIKU }));
    expect(d.chain[1]).toMatchObject({ verdict: 'rejected', candidate_model: TINY, validation_failure: 'no_tool_support' });
    expect(d).toMatchObject({ chosen_model: SONNET, winner_index: 5 });
    expect(d.chain[6]!.verdict).toBe('deferred');
  });

  it('names each capability failure', () => {
    const failure = (over: Partial<RouteContext>) => decide(routeContext({ global_default_model: SONNET, ...over })).chain[1]!.validation_failure;
    expect(failure({ sticky_model: 'anthropic:claude-nonexistent' })).toBe('not_configured');
    expect(failure({ sticky_model: TINY, has_images: true })).toBe('no_vision_support');
    expect(failure({ sticky_model: TINY, estimated_input_tokens: 8_001 })).toBe('exceeds_context_window');
    expect(failure({ sticky_model: TINY, estimated_input_tokens: 8_000 })).toBeNull();
    const unavailable = createCapabilityValidator(registry, { isUnavailable: (m) => m === OPUS });
    expect(unavailable(OPUS, routeContext())).toBe('provider_unavailable');
    expect(unavailable('opus', routeContext())).toBe('provider_unavailable');
  });

  it('a later candidate that fails validation is rejected, not deferred', () => {
    const d = decide(routeContext({ sticky_model: SONNET, global_default_model: TINY, tools_offered: true }));
    expect(d.chain[6]).toMatchObject({ verdict: 'rejected', validation_failure: 'no_tool_support' });
  });

  it('routes a worker session by its delegate tier', () => {
    const d = decide(routeContext({ delegate_tier: 'deep', global_default_model: HAIKU }));
    expect(d).toMatchObject({ chosen_model: OPUS, winner_index: 4 });
    expect(d.chain[4]!.reason).toMatch(/deep/);
  });

  it('records canonical ids when given a canonicalizer', () => {
    const d = decideRoute(routeContext({ sticky_model: 'opus' }), policies, validate, {
      canonicalize: (m) => registry.resolve(m).id,
    });
    expect(d.chosen_model).toBe(OPUS);
    expect(d.chain[1]!.candidate_model).toBe(OPUS);
  });

  it('throws NoRouteError carrying the chain when nothing usable chose', () => {
    const attempt = () => decide(routeContext({ sticky_model: TINY, tools_offered: true }));
    expect(attempt).toThrow(NoRouteError);
    expect(attempt).toThrow(/manual_sticky: rejected \(no_tool_support\)/);
  });

  it('refuses a chain that is not the seven slots in order', () => {
    expect(() => decideRoute(routeContext({ global_default_model: HAIKU }), [...policies].reverse(), validate)).toThrow(/routing chain must be/);
    expect(() => decideRoute(routeContext({ global_default_model: HAIKU }), policies.slice(1), validate)).toThrow(/routing chain must be/);
  });

  it('measures elapsed time with the clock it is given', () => {
    let t = 10;
    const d = decideRoute(routeContext({ global_default_model: HAIKU }), policies, validate, { nowMs: () => (t += 0.25) });
    expect(d.elapsed_ms).toBe(0.25);
  });

  it('always yields seven complete entries, one winner first, deferred only after it, matching the catalog schema', () => {
    const schema = validatorFor<RouteDecidedPayload>('events/route.decided.json');
    const model = fc.constantFrom(null, HAIKU, SONNET, OPUS, TINY, 'local:unknown', 'haiku');
    const ctxArb = fc
      .record({
        override_model: model,
        sticky_model: model,
        workspace_default_model: model,
        global_default_model: fc.constantFrom(HAIKU, TINY, null),
        intent_tags: fc.subarray(['commit', 'debug']),
        tools_offered: fc.boolean(),
        has_images: fc.boolean(),
        estimated_input_tokens: fc.integer({ min: 0, max: 300_000 }),
        delegate_tier: fc.constantFrom(null, 'fast' as const, 'deep' as const),
        rec: fc.option(fc.constantFrom(HAIKU, TINY, 'local:unknown')),
      })
      .map(({ rec, ...c }) =>
        routeContext({ ...c, recommender: fakeRecommender(rec ? { model: rec, confidence: 0.5, alternatives: [{ model: rec, score: 1, sample_size: 9 }] } : null) }),
      );
    fc.assert(
      fc.property(ctxArb, (ctx) => {
        let d: RouteDecidedPayload;
        try {
          d = decide(ctx);
        } catch (e) {
          expect(e).toBeInstanceOf(NoRouteError);
          const chain = (e as NoRouteError).chain;
          expect(chain.map((x) => x.policy)).toEqual([...POLICY_NAMES]);
          expect(chain.every((x) => x.verdict === 'not_applicable' || x.verdict === 'rejected')).toBe(true);
          return;
        }
        expect(schema(d), formatAjvErrors(schema.errors).join('\n')).toBe(true);
        expect(d.chain.map((x) => x.policy)).toEqual([...POLICY_NAMES]);
        expect(d.chain.filter((x) => x.verdict === 'chose')).toHaveLength(1);
        expect(d.chain[d.winner_index]!.verdict).toBe('chose');
        expect(d.chain[d.winner_index]!.candidate_model).toBe(d.chosen_model);
        expect(validate(d.chosen_model, ctx)).toBeNull();
        d.chain.forEach((x, i) => {
          if (x.verdict === 'deferred') expect(i).toBeGreaterThan(d.winner_index);
          if (i < d.winner_index) expect(['not_applicable', 'rejected']).toContain(x.verdict);
          expect(x.verdict === 'rejected').toBe(x.validation_failure !== null);
          expect(x.verdict === 'not_applicable').toBe(x.candidate_model === null);
        });
      }),
      { numRuns: 300 },
    );
  });
});
