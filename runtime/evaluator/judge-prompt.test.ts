import { describe, expect, it } from 'vitest';
import { buildJudgeRequest, JUDGE_MAX_TOKENS, judgeSystemPrompt, parseJudgeAnswer } from './judge-prompt.ts';

describe('judge request', () => {
  it('asks the judge model at temperature 0 with the fixed prompt, the task, the final response and the signals', () => {
    const req = buildJudgeRequest('haiku', { task: 'Fix the failing test in calc.py', finalResponse: 'I changed add() to return a + b.', signals: { check: 1 } });
    expect(req).toMatchObject({ model: 'haiku', temperature: 0, max_tokens: JUDGE_MAX_TOKENS, tools: [], system: judgeSystemPrompt() });
    expect(req.system).toContain('"score"');
    const text = req.messages[0]!.content[0]!;
    expect(text.type === 'text' && text.text).toContain('<task>\nFix the failing test in calc.py\n</task>');
    expect(text.type === 'text' && text.text).toContain('<final_response>\nI changed add() to return a + b.\n</final_response>');
    expect(text.type === 'text' && text.text).toContain('{"check":1}');
  });

  it('cuts a huge final response so one runaway agent cannot run up the judge bill', () => {
    const req = buildJudgeRequest('haiku', { task: 't', finalResponse: 'x'.repeat(50_000), signals: {} });
    const text = req.messages[0]!.content[0]!;
    expect(text.type === 'text' && text.text.length).toBeLessThan(21_000);
    expect(text.type === 'text' && text.text).toContain('30000 more characters cut');
  });
});

describe('parseJudgeAnswer', () => {
  const good = { score: 0.8, confidence: 0.9, rationale: 'Tests pass.' };

  it.each([
    ['bare JSON', JSON.stringify(good)],
    ['a json code fence', 'Here is my verdict:\n```json\n' + JSON.stringify(good) + '\n```'],
    ['an unlabelled fence', '```\n' + JSON.stringify(good) + '\n```'],
    ['prose around the object', 'My verdict: ' + JSON.stringify(good) + ' Thanks.'],
  ])('accepts %s', (_label, text) => {
    expect(parseJudgeAnswer(text)).toEqual({ ok: true, verdict: good });
  });

  it.each([
    ['no JSON at all', 'The agent did well.', /no JSON object/],
    ['a JSON array', '[0.8, 0.9]', /no JSON object/],
    ['two objects', '{"score":1,"confidence":1,"rationale":"a"} {"score":0,"confidence":1,"rationale":"b"}', /no JSON object/],
    ['a score above 1', '{"score":1.5,"confidence":0.9,"rationale":"x"}', /\/score: must be <= 1/],
    ['a negative confidence', '{"score":0.5,"confidence":-0.1,"rationale":"x"}', /\/confidence: must be >= 0/],
    ['a missing rationale', '{"score":0.5,"confidence":0.5}', /rationale/],
    ['an extra field', '{"score":0.5,"confidence":0.5,"rationale":"x","grade":"A"}', /additional properties 'grade'/],
    ['a score as a string', '{"score":"0.5","confidence":0.5,"rationale":"x"}', /\/score: must be number/],
    ['truncated JSON', '{"score":0.5,"confidence":0.5,"rationale":"the agent', /no JSON object/],
  ])('rejects %s', (_label, text, why) => {
    const r = parseJudgeAnswer(text);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(why);
  });
});
