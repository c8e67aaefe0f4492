import { describe, expect, it } from 'vitest';
import { routeContext } from '../test-support/route-fixtures.ts';
import { createRulePolicy } from './rule.ts';

const policy = createRulePolicy([
  { name: 'commits-on-haiku', model: 'haiku', match: { intent_tags: ['commit'] } },
  { name: 'sql-debugging', model: 'opus', match: { file_extensions: ['sql'], message_regex: '\\b(slow|deadlock)\\b' } },
  { name: 'docs', model: 'sonnet', match: { file_extensions: ['.md', '.rst'] } },
]);

describe('rule policy', () => {
  it('chooses the first rule that matches and names it', () => {
    const p = policy.evaluate(routeContext({ intent_tags: ['commit'], file_extensions: ['.md'] }));
    expect(p).toMatchObject({ verdict: 'chose', candidate_model: 'haiku', rule_name: 'commits-on-haiku' });
  });

  it('needs every criterion of a rule to hold', () => {
    expect(policy.evaluate(routeContext({ file_extensions: ['.sql'], user_message: 'add a column' })).verdict).toBe('not_applicable');
    expect(policy.evaluate(routeContext({ file_extensions: ['.sql'], user_message: 'This query is SLOW' }))).toMatchObject({
      verdict: 'chose',
      rule_name: 'sql-debugging',
    });
  });

  it('compares extensions case-insensitively with or without the dot', () => {
    expect(policy.evaluate(routeContext({ file_extensions: ['RST'] }))).toMatchObject({ rule_name: 'docs' });
    expect(policy.evaluate(routeContext({ file_extensions: ['.SQL'], user_message: 'deadlock' }))).toMatchObject({ rule_name: 'sql-debugging' });
  });

  it('says how many rules it tried when none matched', () => {
    expect(policy.evaluate(routeContext({ file_extensions: ['.ts'] }))).toEqual({ verdict: 'not_applicable', reason: 'none of 3 rules matched' });
    expect(createRulePolicy([]).evaluate(routeContext()).reason).toBe('no rules configured');
  });
});
